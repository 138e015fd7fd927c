import type { WebhookRow } from '../webhooks/repository';
import { iso } from './iso';

/** A webhook as every response but its creation shows it: without the secret. */
export function presentWebhook(row: Pick<WebhookRow, 'id' | 'url' | 'events' | 'created_at'>) {
  return { webhook_id: row.id, url: row.url, events: row.events, created_at: iso(row.created_at) };
}

/** The answer to creating a webhook: the only one that ever shows its secret. */
export function presentCreatedWebhook(row: Pick<WebhookRow, 'id' | 'url' | 'events' | 'created_at' | 'secret'>) {
  return { ...presentWebhook(row), secret: row.secret };
}
