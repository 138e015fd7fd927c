import { ApiError } from '../errors';
import { hasIdShape } from '../ids';
import { DELIVERY_EVENTS, type DeliveryEvent } from './events';
import { DELIVERY_STATES, findDelivery, listDeliveries, type DeliveryFilter, type DeliveryRow } from './repository';
import { redeliveryOf } from './redelivery';
import { requireEnabled, requireWebhook, type Actor, type WebhookServiceDeps } from './service';

/** Signals sent at once by a recovery: enough to be quick, few enough not to flood Temporal. */
const RECOVERY_CONCURRENCY = 20;

/** What the delivery log may be narrowed to (GET /webhooks/{webhook_id}/deliveries and the dashboard's filters). */
export const DELIVERY_FILTER_CHOICES = { statuses: DELIVERY_STATES, events: DELIVERY_EVENTS } as const;

/**
 * A filter from text fields (a page's query): empty fields filter nothing; `since` is an RFC 3339 time,
 * or a date and time without offset (what a datetime-local field sends), read as UTC.
 */
export function deliveryFilterOf(fields: { status?: string; event?: string; since?: string }): DeliveryFilter {
  const filter: DeliveryFilter = {};
  if (fields.status) {
    if (!(DELIVERY_STATES as readonly string[]).includes(fields.status))
      throw new ApiError('invalid_request', `field status must be one of ${DELIVERY_STATES.join(', ')}`);
    filter.state = fields.status as DeliveryRow['state'];
  }
  if (fields.event) {
    if (!(DELIVERY_EVENTS as readonly string[]).includes(fields.event))
      throw new ApiError('invalid_request', `field event must be one of ${DELIVERY_EVENTS.join(', ')}`);
    filter.event = fields.event as DeliveryEvent;
  }
  if (fields.since) {
    const match = SINCE.exec(fields.since);
    const since = match ? new Date(match[1] ? fields.since : `${fields.since}Z`) : null;
    if (!since || Number.isNaN(since.getTime()))
      throw new ApiError('invalid_request', 'field since must be a date and time, e.g. 2026-11-28T09:30 (UTC)');
    filter.since = since;
  }
  return filter;
}

const SINCE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/i;

/** The delivery log of a webhook, newest first, narrowed by state, event and creation time. */
export async function webhookDeliveries(
  deps: WebhookServiceDeps,
  actor: Actor,
  webhookId: string,
  page: { limit: number; after?: { createdAt: string; id: string } },
  filter: DeliveryFilter,
) {
  const webhook = await requireWebhook(deps, actor, webhookId);
  return listDeliveries(deps.db, webhook.id, page, filter);
}

/**
 * One delivery sent again by hand (the redeliver signal to its DeliveryWorkflow), within the
 * redelivery window of its event; never to a disabled webhook.
 */
export async function redeliver(
  deps: WebhookServiceDeps,
  actor: Actor,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow> {
  const webhook = await requireWebhook(deps, actor, webhookId);
  const delivery = hasIdShape('delivery', deliveryId) ? await findDelivery(deps.db, webhook.id, deliveryId) : undefined;
  if (!delivery)
    throw new ApiError(
      'delivery_not_found',
      `no delivery ${hasIdShape('delivery', deliveryId) ? deliveryId : 'with this id'} for webhook ${webhook.id}`,
    );
  requireEnabled(webhook);
  const windowEnd = new Date(delivery.created_at).getTime() + deps.redeliveryWindowMs;
  const expired = () =>
    new ApiError(
      'redelivery_window_expired',
      `manual redelivery was possible until ${new Date(windowEnd).toISOString()}` +
        (delivery.audit_id ? `; fetch the audit with GET /audits/${delivery.audit_id} instead` : ''),
    );
  if (deps.clock.now().getTime() >= windowEnd) throw expired();
  if ((await deps.deliveries.redeliver(redeliveryOf(delivery))) === 'closed') throw expired();
  return delivery;
}

/**
 * POST /webhooks/{webhook_id}/recover: every failed delivery of the webhook created since `since`
 * (no earlier than the redelivery window allows) is sent again as a manual attempt, each with its own
 * delivery id, through its DeliveryWorkflow. Test events are not: they are never sent again. Returns
 * how many were queued (a delivery whose workflow ended meanwhile is not).
 */
export async function recoverFailed(
  deps: WebhookServiceDeps,
  actor: Actor,
  webhookId: string,
  since: Date,
): Promise<{ queued: number }> {
  const webhook = await requireWebhook(deps, actor, webhookId);
  requireEnabled(webhook);
  const now = deps.clock.now();
  const windowStart = new Date(now.getTime() - deps.redeliveryWindowMs);
  const from = since > windowStart ? since : windowStart;
  const failed: Array<DeliveryRow & { audit_domain: string | null }> = await deps
    .db('deliveries as d')
    .leftJoin('audits as a', 'a.id', 'd.audit_id')
    .where({ 'd.webhook_id': webhook.id, 'd.state': 'failed' })
    .whereNot('d.event', 'webhook.test')
    // Strictly inside the window: a delivery whose window closes right now cannot be served.
    .where('d.created_at', '>', windowStart)
    .where('d.created_at', '>=', from)
    .orderBy('d.created_at')
    .select('d.*', 'a.domain as audit_domain');
  let queued = 0;
  for (let at = 0; at < failed.length; at += RECOVERY_CONCURRENCY) {
    const outcomes = await Promise.all(
      failed.slice(at, at + RECOVERY_CONCURRENCY).map((delivery) => deps.deliveries.redeliver(redeliveryOf(delivery))),
    );
    queued += outcomes.filter((outcome) => outcome === 'signalled').length;
  }
  return { queued };
}
