import type { NotificationChannelRow } from '../notifications/repository';
import { iso } from './iso';

/** A notification channel as every response shows it. */
export function presentNotificationChannel(
  row: Pick<NotificationChannelRow, 'id' | 'type' | 'target' | 'events' | 'created_at'>,
) {
  return {
    channel_id: row.id,
    type: row.type,
    target: row.target,
    events: row.events,
    created_at: iso(row.created_at),
  };
}
