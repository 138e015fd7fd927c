import type { AuditFailureCode } from '../../workflows/contracts';

/** Every event a webhook can subscribe to (the event catalog: README "Webhooks"). */
export const WEBHOOK_EVENTS = [
  'audit.completed',
  'audit.failed',
  'audit.retried',
  'site.regressed',
  'webhook.disabled',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Every event a delivery can carry: the subscribable ones, and webhook.test (sent to the one webhook
 * that asked for it, whatever it subscribes to). webhook.disabled is subscribable.
 */
export const DELIVERY_EVENTS = [...WEBHOOK_EVENTS, 'webhook.test'] as const;
export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

/** What a webhook created without `events` receives: the spec's three. site.regressed and webhook.disabled are opt-in. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['audit.completed', 'audit.failed', 'audit.retried'];

/** audit.failed (docs/decisions.md, Audit lifecycle): the final failure after all automatic retries, or a final code. */
export function auditFailedBody(input: {
  auditId: string;
  domain: string;
  error: { code: AuditFailureCode; message: string };
  attempts: number;
  failedAt: Date;
}): string {
  return JSON.stringify({
    audit_id: input.auditId,
    domain: input.domain,
    error: input.error,
    attempts: input.attempts,
    failed_at: input.failedAt.toISOString(),
  });
}

/** audit.retried (docs/decisions.md, Audit lifecycle): one automatic retry is scheduled. */
export function auditRetriedBody(input: {
  auditId: string;
  domain: string;
  attempt: number;
  maxRetries: number;
  nextAttemptAt: Date;
  error: { code: AuditFailureCode; message: string };
}): string {
  return JSON.stringify({
    audit_id: input.auditId,
    domain: input.domain,
    attempt: input.attempt,
    max_retries: input.maxRetries,
    next_attempt_at: input.nextAttemptAt.toISOString(),
    error: input.error,
  });
}

/** webhook.test (docs/decisions.md, "Webhook lifecycle"): sent at once on request, never retried. */
export function webhookTestBody(input: { webhookId: string; sentAt: Date }): string {
  return JSON.stringify({ type: 'webhook.test', webhook_id: input.webhookId, sent_at: input.sentAt.toISOString() });
}

/** webhook.disabled: to the workspace's other webhooks that list it, when one is disabled. */
export function webhookDisabledBody(input: {
  webhookId: string;
  url: string;
  disabledAt: Date;
  reason: string;
}): string {
  return JSON.stringify({
    webhook_id: input.webhookId,
    url: input.url,
    disabled_at: input.disabledAt.toISOString(),
    reason: input.reason,
  });
}
