import type { Db } from '../db/knex';
import { randomBase62 } from '../ids';
import type { Mode } from '../schemas/audit';
import type { DeliveryProgress } from '../../workflows/contracts';
import type { DeliveryEvent, WebhookEvent } from './events';

export interface WebhookRow {
  id: string;
  workspace_id: string;
  mode: Mode;
  url: string;
  events: WebhookEvent[];
  secret: string;
  created_at: Date;
  deleted_at: Date | null;
  status: WebhookStatus;
  disabled_at: Date | null;
  disabled_reason: string | null;
  /** When its current streak of nothing but failed attempts began; null once an attempt is acknowledged. */
  failing_since: Date | null;
  /** The streak its WebhookHealthWorkflow was told of (src/webhooks/failing-streak.ts). */
  watched_for: Date | null;
  /** The streak its owners were warned of. */
  failure_notice_for: Date | null;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

export type WebhookStatus = 'enabled' | 'disabled';

/** Where a delivery stands: waiting for an attempt (or its next one), acknowledged, or given up on. */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  workspace_id: string;
  mode: Mode;
  /** null for events about no audit: webhook.test, webhook.disabled. */
  audit_id: string | null;
  event: DeliveryEvent;
  url: string;
  payload: string;
  state: (typeof DELIVERY_STATES)[number];
  attempts: number;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
}

export interface DeliveryAttemptRow {
  delivery_id: string;
  attempt: number;
  trigger: 'automatic' | 'manual';
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error_class: string | null;
  error_message: string | null;
  response_excerpt: string | null;
  next_attempt_at: Date | null;
}

export interface Scope {
  workspaceId: string;
  mode: Mode;
}

export const newWebhookId = (): string => `wh_${randomBase62(20)}`;

/** What a new webhook is made of; the lifecycle columns start as the migration's defaults (enabled, no streak). */
export type NewWebhook = Pick<WebhookRow, 'id' | 'workspace_id' | 'mode' | 'url' | 'events' | 'secret' | 'created_at'>;

export async function insertWebhook(db: Db, row: NewWebhook): Promise<void> {
  await db('webhooks').insert(row);
}

/** Active webhooks of a workspace and environment, oldest first, keyset-paginated. */
export async function listWebhooks(
  db: Db,
  scope: Scope,
  page: { limit: number; after?: { createdAt: string; id: string } },
) {
  const query = db<WebhookRow>('webhooks')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('deleted_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(page.limit + 1);
  if (page.after) query.whereRaw('(created_at, id) > (?::timestamptz, ?)', [page.after.createdAt, page.after.id]);
  const rows = (await query) as WebhookRow[];
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

export async function findWebhook(db: Db, scope: Scope, webhookId: string): Promise<WebhookRow | undefined> {
  return db<WebhookRow>('webhooks')
    .where({ id: webhookId, workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('deleted_at')
    .first();
}

export async function deleteWebhook(db: Db, scope: Scope, webhookId: string, now: Date): Promise<boolean> {
  const updated = await db('webhooks')
    .where({ id: webhookId, workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('deleted_at')
    .update({ deleted_at: now });
  return updated > 0;
}

/** Enabled webhooks of the workspace and environment subscribed to an event, oldest first. */
export async function subscribedWebhooks(db: Db, scope: Scope, event: WebhookEvent): Promise<WebhookRow[]> {
  return db<WebhookRow>('webhooks')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode, status: 'enabled' })
    .whereNull('deleted_at')
    .whereRaw('? = ANY(events)', [event])
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

/** A delivery with what its attempt needs of its webhook: secrets, whether it is still there and enabled, its streak. */
export type LoadedDelivery = DeliveryRow &
  Pick<WebhookRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'> & {
    webhook_deleted_at: Date | null;
    webhook_status: WebhookStatus;
  };

export async function loadDelivery(db: Db, deliveryId: string): Promise<LoadedDelivery | undefined> {
  return db('deliveries as d')
    .join('webhooks as w', 'w.id', 'd.webhook_id')
    .where('d.id', deliveryId)
    .first(
      'd.*',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'w.deleted_at as webhook_deleted_at',
      'w.status as webhook_status',
    );
}

/** A delivery of a webhook, with its audit's domain if it has an audit (what the delivery's workflow is found by). */
export async function findDelivery(
  db: Db,
  webhookId: string,
  deliveryId: string,
): Promise<(DeliveryRow & { audit_domain: string | null }) | undefined> {
  return db('deliveries as d')
    .leftJoin('audits as a', 'a.id', 'd.audit_id')
    .where({ 'd.id': deliveryId, 'd.webhook_id': webhookId })
    .first('d.*', 'a.domain as audit_domain');
}

/** What the delivery log may be narrowed to: a state, an event, deliveries created at or after a time. */
export interface DeliveryFilter {
  state?: DeliveryRow['state'];
  event?: DeliveryEvent;
  since?: Date;
}

/** The delivery log of a webhook, newest first, each delivery with all its attempts. */
export async function listDeliveries(
  db: Db,
  webhookId: string,
  page: { limit: number; after?: { createdAt: string; id: string } },
  filter: DeliveryFilter = {},
) {
  const query = db<DeliveryRow>('deliveries')
    .where({ webhook_id: webhookId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.limit + 1);
  if (filter.state) query.where('state', filter.state);
  if (filter.event) query.where('event', filter.event);
  if (filter.since) query.where('created_at', '>=', filter.since);
  if (page.after) query.whereRaw('(created_at, id) < (?::timestamptz, ?)', [page.after.createdAt, page.after.id]);
  const rows = ((await query) as DeliveryRow[]).slice(0, page.limit + 1);
  const visible = rows.slice(0, page.limit);
  const attempts: DeliveryAttemptRow[] = visible.length
    ? await db('delivery_attempts')
        .whereIn(
          'delivery_id',
          visible.map((r) => r.id),
        )
        .orderBy(['delivery_id', 'attempt'])
    : [];
  return { rows: visible, attempts, hasMore: rows.length > page.limit };
}

/** Every attempt of one delivery, first first. */
export async function deliveryAttempts(db: Db, deliveryId: string): Promise<DeliveryAttemptRow[]> {
  return db<DeliveryAttemptRow>('delivery_attempts').where({ delivery_id: deliveryId }).orderBy('attempt');
}

/** Where a logged delivery stands: its attempts so far, whether one was acknowledged, when the next automatic one is due. */
export async function deliveryProgress(db: Db, deliveryId: string): Promise<DeliveryProgress | null> {
  const row: Pick<DeliveryRow, 'state' | 'attempts' | 'next_attempt_at'> | undefined = await db<DeliveryRow>(
    'deliveries',
  )
    .where({ id: deliveryId })
    .first('state', 'attempts', 'next_attempt_at');
  if (!row) return null;
  return {
    attempts: row.attempts,
    delivered: row.state === 'delivered',
    nextAttemptAt: row.state === 'pending' && row.next_attempt_at ? new Date(row.next_attempt_at).toISOString() : null,
  };
}
