import type { Db } from '../db/knex';
import type { Mode } from '../schemas/audit';
import type { NOTIFICATION_CHANNEL_TYPES } from '../schemas/api-notifications';
import type { NotificationEvent } from '../../workflows/contracts';

export type ChannelType = (typeof NOTIFICATION_CHANNEL_TYPES)[number];

export interface NotificationChannelRow {
  id: string;
  workspace_id: string;
  mode: Mode;
  type: ChannelType;
  /** An e-mail address, or a Slack or Teams incoming-webhook URL. */
  target: string;
  events: NotificationEvent[];
  created_at: Date;
  deleted_at: Date | null;
}

export type NotificationState = 'pending' | 'delivered' | 'failed';

/** One message to one channel, as the notification log keeps it. */
export interface NotificationRow {
  id: string;
  channel_id: string;
  workspace_id: string;
  mode: Mode;
  event: NotificationEvent;
  audit_id: string | null;
  site_id: string | null;
  webhook_id: string | null;
  target: string;
  /** The exact body of every attempt: Slack's or Teams' JSON, or {"subject","text"} of an e-mail. */
  payload: string;
  state: NotificationState;
  attempts: number;
  last_status_code: number | null;
  last_error_class: string | null;
  last_error_message: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
}

export interface Scope {
  workspaceId: string;
  mode: Mode;
}

export type NewChannel = Omit<NotificationChannelRow, 'deleted_at'>;

export async function insertChannel(db: Db, row: NewChannel): Promise<void> {
  await db('notification_channels').insert(row);
}

export async function countChannels(db: Db, scope: Scope): Promise<number> {
  const [{ count }] = await db('notification_channels')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('deleted_at')
    .count({ count: '*' });
  return Number(count);
}

/** Channels of a workspace and environment, oldest first, keyset-paginated. */
export async function listChannels(
  db: Db,
  scope: Scope,
  page: { limit: number; after?: { createdAt: string; id: string } },
): Promise<{ rows: NotificationChannelRow[]; hasMore: boolean }> {
  const query = db<NotificationChannelRow>('notification_channels')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('deleted_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(page.limit + 1);
  if (page.after) query.whereRaw('(created_at, id) > (?::timestamptz, ?)', [page.after.createdAt, page.after.id]);
  const rows = (await query) as NotificationChannelRow[];
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

export async function findChannel(
  db: Db,
  scope: Scope,
  channelId: string,
): Promise<NotificationChannelRow | undefined> {
  return db<NotificationChannelRow>('notification_channels')
    .where({ id: channelId, workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('deleted_at')
    .first();
}

/** Removes a channel: later events are not sent to it, and a message still being retried to it stops. */
export async function deleteChannel(db: Db, scope: Scope, channelId: string, now: Date): Promise<boolean> {
  const updated = await db('notification_channels')
    .where({ id: channelId, workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('deleted_at')
    .update({ deleted_at: now });
  return updated > 0;
}

/** Channels of the workspace and environment that list an event, oldest first. */
export async function subscribedChannels(
  db: Db,
  scope: Scope,
  event: NotificationEvent,
): Promise<NotificationChannelRow[]> {
  return db<NotificationChannelRow>('notification_channels')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('deleted_at')
    .whereRaw('? = ANY(events)', [event])
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

/** A notification with whether its channel is still there. */
export type LoadedNotification = NotificationRow & { channel_type: ChannelType; channel_deleted_at: Date | null };

export async function loadNotification(db: Db, notificationId: string): Promise<LoadedNotification | undefined> {
  return db('notifications as n')
    .join('notification_channels as c', 'c.id', 'n.channel_id')
    .where('n.id', notificationId)
    .first('n.*', 'c.type as channel_type', 'c.deleted_at as channel_deleted_at');
}
