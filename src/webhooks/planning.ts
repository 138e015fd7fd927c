import { createHash } from 'node:crypto';
import type { Db } from '../db/knex';
import { loadAudit } from '../audits/repository';
import type { EventDetails } from '../../workflows/contracts';
import { auditFailedBody, auditRetriedBody, type WebhookEvent } from './events';
import { subscribedWebhooks } from './repository';
import { regressedSite, regressionOf, siteRegressedBody } from '../sites/regression';

/** One delivery of an event, as the emitting workflow starts it: the delivery records itself. */
export interface PlannedDelivery {
  deliveryId: string;
  /** When the event happened (the delivery log's created_at). */
  createdAt: string;
  webhookId: string;
  /** Where it goes: the webhook's URL, or the trigger's webhook_url override. */
  url: string;
  /** Another event than the one planned for (site.regressed, planned with audit.completed). */
  details?: EventDetails;
}

/**
 * The deliveries of one event: one per active webhook of the audit's workspace and environment
 * subscribed to it — or, when the trigger named a webhook_url, one to that URL instead, signed with
 * the secret of the oldest subscribed webhook (the override replaces the address, not the
 * subscription). Delivery ids derive from `emissionKey`, so planning again gives the same ids.
 * Nothing is written here: each DeliveryWorkflow records its own log row (recordDelivery), so a
 * workflow run that ends between planning and starting the deliveries leaves no row behind.
 */
export async function planDeliveries(
  db: Db,
  input: { auditId: string; emissionKey: string; details: EventDetails; now: Date },
): Promise<PlannedDelivery[]> {
  const audit = await loadAudit(db, input.auditId);
  if (!audit) return [];
  const event: WebhookEvent = input.details.event;
  const webhooks = await subscribedWebhooks(db, { workspaceId: audit.workspace_id, mode: audit.mode }, event);
  const targets =
    audit.webhook_url && webhooks.length
      ? [{ webhook: webhooks[0], url: audit.webhook_url }]
      : webhooks.map((webhook) => ({ webhook, url: webhook.url }));
  const planned = targets.map(({ webhook, url }) => ({
    deliveryId: deliveryId(input.emissionKey, event, webhook.id),
    createdAt: input.now.toISOString(),
    webhookId: webhook.id,
    url,
  }));
  return event === 'audit.completed' ? [...planned, ...(await planRegression(db, audit, input))] : planned;
}

/**
 * site.regressed, planned in the same step as audit.completed (so the audit workflow's commands
 * stay as they were): one delivery per webhook that lists the event, never to any other.
 */
async function planRegression(
  db: Db,
  audit: NonNullable<Awaited<ReturnType<typeof loadAudit>>>,
  input: { emissionKey: string; now: Date },
): Promise<PlannedDelivery[]> {
  const siteId = await regressedSite(db, audit);
  if (!siteId) return [];
  const event = 'site.regressed';
  const webhooks = await subscribedWebhooks(db, { workspaceId: audit.workspace_id, mode: audit.mode }, event);
  return webhooks.map((webhook) => ({
    deliveryId: deliveryId(input.emissionKey, event, webhook.id),
    createdAt: input.now.toISOString(),
    webhookId: webhook.id,
    url: webhook.url,
    details: { event, siteId },
  }));
}

/**
 * A delivery's first step: its row in the delivery log, with the exact bytes every attempt POSTs.
 * Idempotent (a retried step finds its row). False when the audit no longer exists: nothing to send.
 */
export async function recordDelivery(
  db: Db,
  input: {
    deliveryId: string;
    auditId: string;
    webhookId: string;
    url: string;
    details: EventDetails;
    eventAt: string;
  },
): Promise<boolean> {
  const audit = await loadAudit(db, input.auditId);
  if (!audit) return false;
  await db('deliveries')
    .insert({
      id: input.deliveryId,
      webhook_id: input.webhookId,
      workspace_id: audit.workspace_id,
      mode: audit.mode,
      audit_id: audit.id,
      event: input.details.event,
      url: input.url,
      payload: eventPayload(audit, input.details),
      created_at: new Date(input.eventAt),
    })
    .onConflict('id')
    .ignore();
  return true;
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
    case 'site.regressed': {
      const regression = audit.result_json === null ? null : regressionOf(audit.result_json);
      if (!regression) throw new Error(`audit ${audit.id} did not regress`);
      return siteRegressedBody({ siteId: details.siteId, auditId: audit.id, regression });
    }
  }
}

function deliveryId(emissionKey: string, event: string, webhookId: string): string {
  const digest = createHash('sha256')
    .update(`${emissionKey}\0${event}\0${webhookId}`)
    .digest('base64url')
    .replace(/[-_]/g, '');
  return `dlv_${digest.slice(0, 24)}`;
}
