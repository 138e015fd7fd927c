import type { WebhookRow } from '../webhooks/repository';
import { iso } from './iso';

type Presented = Pick<
  WebhookRow,
  | 'id'
  | 'url'
  | 'events'
  | 'created_at'
  | 'status'
  | 'disabled_at'
  | 'disabled_reason'
  | 'failing_since'
  | 'previous_secret_expires_at'
>;

/** A webhook as every response but its creation shows it: without the secret, with its state. */
export function presentWebhook(row: Presented, now: Date = new Date()) {
  const previousSigns = row.previous_secret_expires_at !== null && new Date(row.previous_secret_expires_at) > now;
  return {
    webhook_id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabled_at: iso(row.disabled_at),
    disabled_reason: row.disabled_reason,
    failing_since: iso(row.failing_since),
    previous_secret_expires_at: previousSigns ? iso(row.previous_secret_expires_at) : null,
    created_at: iso(row.created_at),
  };
}

/** The answer to creating a webhook: the only one that ever shows its secret. */
export function presentCreatedWebhook(row: Presented & Pick<WebhookRow, 'secret'>, now?: Date) {
  return { ...presentWebhook(row, now), secret: row.secret };
}

/** The answer to a rotation: the new secret, shown once, and until when the previous one still signs. */
export function presentRotatedSecret(input: {
  webhookId: string;
  secret: string;
  previousSecretExpiresAt: Date | null;
}) {
  return {
    webhook_id: input.webhookId,
    secret: input.secret,
    previous_secret_expires_at: iso(input.previousSecretExpiresAt),
  };
}

/** The answer to a test event. */
export function presentTestOutcome(outcome: {
  deliveryId: string;
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  errorMessage: string | null;
}) {
  return {
    delivery_id: outcome.deliveryId,
    delivered: outcome.delivered,
    status_code: outcome.statusCode,
    duration_ms: outcome.durationMs,
    error: outcome.error,
    error_message: outcome.errorMessage,
  };
}
