import { createHash } from 'node:crypto';
import type { Db } from '../db/knex';
import { loadAudit } from '../audits/repository';
import { regressedSite } from '../sites/regression';
import type {
  NotificationEvent,
  NotificationOccasion,
  NotificationSubject,
  PlannedNotification,
} from '../../workflows/contracts';
import { subscribedChannels, type Scope } from './repository';

/**
 * The notifications of one occasion: one per channel of the workspace and environment that lists the
 * event (docs/decisions.md, "Notification channels"). An audit's completion is site.regressed when the
 * audit of a monitored site regressed, as the webhook event is decided (src/sites/regression.ts), and
 * nothing otherwise. Reads only: each NotificationWorkflow logs its own row as its first step.
 * Notification ids derive from the occasion and the channel, so planning again gives the same ids.
 */
export async function planNotifications(
  db: Db,
  occasion: NotificationOccasion,
  now: Date,
): Promise<PlannedNotification[]> {
  if (!('webhookId' in occasion)) {
    const scope = { workspaceId: occasion.workspaceId, mode: occasion.mode };
    const event: NotificationEvent = occasion.event === 'audit.failed' ? 'audit.failed' : 'site.regressed';
    // Channels first: an audit's result (megabytes for a large crawl) is read only when somebody listens.
    const channels = await subscribedChannels(db, scope, event);
    if (channels.length === 0) return [];
    const about = await auditSubject(db, occasion.auditId, event);
    if (!about) return [];
    return plan(scope, channels, { event, key: occasion.emissionKey, about, at: now.toISOString() });
  }
  const webhook: { workspace_id: string; mode: Scope['mode'] } | undefined = await db('webhooks')
    .where({ id: occasion.webhookId })
    .first('workspace_id', 'mode');
  if (!webhook) return [];
  const scope = { workspaceId: webhook.workspace_id, mode: webhook.mode };
  const channels = await subscribedChannels(db, scope, occasion.event);
  // webhook.failing happens now, about a streak that began at `at`; webhook.disabled happened at `at`.
  const failing = occasion.event === 'webhook.failing';
  return plan(scope, channels, {
    event: occasion.event,
    key: `${occasion.webhookId}:${occasion.at}`,
    about: failing
      ? { webhookId: occasion.webhookId, failingSince: occasion.at, disableAt: occasion.disableAt }
      : { webhookId: occasion.webhookId },
    at: failing ? now.toISOString() : occasion.at,
  });
}

/** The audit (and for site.regressed its site) a notification is about; null when there is nothing to tell. */
async function auditSubject(db: Db, auditId: string, event: NotificationEvent): Promise<NotificationSubject | null> {
  if (event === 'audit.failed') return { auditId };
  const audit = await loadAudit(db, auditId);
  const siteId = audit ? await regressedSite(db, audit) : null;
  return siteId ? { auditId, siteId } : null;
}

function plan(
  scope: Scope,
  channels: Array<{ id: string }>,
  what: { event: NotificationEvent; key: string; about: NotificationSubject; at: string },
): PlannedNotification[] {
  return channels.map((channel) => ({
    notificationId: notificationId(what.key, what.event, channel.id),
    channelId: channel.id,
    event: what.event,
    eventAt: what.at,
    about: what.about,
    workspaceId: scope.workspaceId,
    mode: scope.mode,
  }));
}

/** A notification's id, derived from what emitted it: planning the same emission again gives the same ids. */
export function notificationId(emissionKey: string, event: string, channelId: string): string {
  const digest = createHash('sha256')
    .update(`${emissionKey}\0${event}\0${channelId}`)
    .digest('base64url')
    .replace(/[-_]/g, '');
  return `ntf_${digest.slice(0, 24)}`;
}
