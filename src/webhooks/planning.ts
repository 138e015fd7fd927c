import { createHash } from 'node:crypto';
import type { Db } from '../db/knex';
import { loadAudit } from '../audits/repository';
import type { AuditFailureCode } from '../audits/failures';
import { auditFailedBody, auditRetriedBody, type WebhookEvent } from './events';
import { subscribedWebhooks } from './repository';

export interface PlannedDelivery {
  deliveryId: string;
  createdAt: string;
}

export type EventDetails =
  | { event: 'audit.completed' }
  | { event: 'audit.failed' }
  | { event: 'audit.retried'; attempt: number; maxRetries: number; nextAttemptAt: string; error: { code: AuditFailureCode; message: string } };

/**
 * The deliveries of one event: one per active webhook of the audit's workspace and environment
 * subscribed to it — or, when the trigger named a webhook_url, one to that URL instead, signed with
 * the secret of the oldest subscribed webhook (the override replaces the address, not the
 * subscription). Idempotent per `emissionKey`: the delivery ids derive from it.
 */
export async function planDeliveries(db: Db, input: { auditId: string; emissionKey: string; details: EventDetails; now: Date }): Promise<PlannedDelivery[]> {
  const audit = await loadAudit(db, input.auditId);
  if (!audit) return [];
  const event: WebhookEvent = input.details.event;
  const webhooks = await subscribedWebhooks(db, { workspaceId: audit.workspace_id, mode: audit.mode }, event);
  if (webhooks.length === 0) return [];
  const targets = audit.webhook_url ? [{ webhook: webhooks[0], url: audit.webhook_url }] : webhooks.map((webhook) => ({ webhook, url: webhook.url }));
  const payload = eventPayload(audit, input.details);
  const rows = targets.map(({ webhook, url }) => ({
    id: deliveryId(input.emissionKey, event, webhook.id),
    webhook_id: webhook.id,
    workspace_id: audit.workspace_id,
    mode: audit.mode,
    audit_id: audit.id,
    event,
    url,
    payload,
    created_at: input.now,
  }));
  await db('deliveries').insert(rows).onConflict('id').ignore();
  const stored = await db('deliveries').whereIn('id', rows.map((r) => r.id)).select('id', 'created_at');
  return stored.map((row) => ({ deliveryId: row.id as string, createdAt: new Date(row.created_at).toISOString() }));
}

function eventPayload(audit: NonNullable<Awaited<ReturnType<typeof loadAudit>>>, details: EventDetails): string {
  switch (details.event) {
    case 'audit.completed':
      // The stored bytes, identical to GET /audits/{id}.
      if (audit.result_json === null) throw new Error(`audit ${audit.id} has no stored result`);
      return audit.result_json;
    case 'audit.failed':
      return auditFailedBody({
        auditId: audit.id,
        domain: audit.domain,
        error: { code: audit.error_code ?? 'internal_error', message: audit.error_message ?? 'the audit failed' },
        attempts: audit.attempts,
        failedAt: audit.failed_at ? new Date(audit.failed_at) : new Date(),
      });
    case 'audit.retried':
      return auditRetriedBody({
        auditId: audit.id,
        domain: audit.domain,
        attempt: details.attempt,
        maxRetries: details.maxRetries,
        nextAttemptAt: new Date(details.nextAttemptAt),
        error: details.error,
      });
  }
}

function deliveryId(emissionKey: string, event: string, webhookId: string): string {
  const digest = createHash('sha256').update(`${emissionKey}\0${event}\0${webhookId}`).digest('base64url').replace(/[-_]/g, '');
  return `dlv_${digest.slice(0, 24)}`;
}
