import { createHash } from 'node:crypto';
import type { Db } from '../db/knex';
import { loadAudit } from '../audits/repository';
import type { EventDetails, PlannedDelivery } from '../../workflows/contracts';
import type { WebhookEvent } from './events';
import { eventPayload } from './payload';
import { subscribedWebhooks } from './repository';
import { regressedSite } from '../sites/regression';

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

/** A delivery's id, derived from what emitted it: planning the same emission again gives the same ids. */
export function deliveryId(emissionKey: string, event: string, webhookId: string): string {
  const digest = createHash('sha256')
    .update(`${emissionKey}\0${event}\0${webhookId}`)
    .digest('base64url')
    .replace(/[-_]/g, '');
  return `dlv_${digest.slice(0, 24)}`;
}
