import type { Db } from '../db/knex';
import type { PlannedNotification } from '../../workflows/contracts';
import { noticeFacts } from './facts';
import { emailMessage, slackMessage, teamsMessage } from './formats';
import { noticeOf } from './notice';
import type { ChannelType, NotificationChannelRow } from './repository';

/**
 * A notification's first step: its row in the notification log, with the exact body every attempt
 * sends, built once from the facts as they are now. Idempotent (a retried step finds its row). False
 * when there is nothing to send: the channel was removed, or what it is about is gone.
 */
export async function recordNotification(
  deps: { db: Db; dashboardUrl: string },
  planned: PlannedNotification,
): Promise<boolean> {
  if (await deps.db('notifications').where({ id: planned.notificationId }).first('id')) return true;
  const channel: NotificationChannelRow | undefined = await deps
    .db('notification_channels')
    .where({ id: planned.channelId })
    .whereNull('deleted_at')
    .first();
  if (!channel) return false;
  const facts = await noticeFacts(deps.db, planned);
  if (!facts) return false;
  const notice = noticeOf(facts, { dashboardUrl: deps.dashboardUrl, mode: planned.mode });
  await deps
    .db('notifications')
    .insert({
      id: planned.notificationId,
      channel_id: channel.id,
      workspace_id: planned.workspaceId,
      mode: planned.mode,
      event: planned.event,
      audit_id: planned.about.auditId ?? null,
      site_id: planned.about.siteId ?? null,
      webhook_id: planned.about.webhookId ?? null,
      target: channel.target,
      payload: JSON.stringify(messageFor(channel.type, notice, channel)),
      created_at: new Date(planned.eventAt),
    })
    .onConflict('id')
    .ignore();
  return true;
}

function messageFor(type: ChannelType, notice: ReturnType<typeof noticeOf>, channel: { id: string }): object {
  switch (type) {
    case 'email':
      return emailMessage(notice, channel);
    case 'slack':
      return slackMessage(notice);
    case 'teams':
      return teamsMessage(notice);
  }
}
