import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { ApiError } from '../errors';
import { hasIdShape, newNotificationChannelId } from '../ids';
import type { CidrList } from '../outbound/policy';
import type { RefusalLog } from '../outbound/refusal';
import type { LookupAllFn } from '../outbound/resolve';
import type { NotificationEvent } from '../../workflows/contracts';
import {
  countChannels,
  deleteChannel,
  findChannel,
  insertChannel,
  listChannels,
  type ChannelType,
  type NotificationChannelRow,
  type Scope,
} from './repository';
import { checkChannelTarget } from './targets';

/**
 * The notification-channel actions a customer takes, one implementation each for every surface that
 * offers them: the API's routes, the dashboard's page and the admin CLI's `channel` commands.
 * Each applies its rules (the target for its type, the number of channels) and throws ApiError with
 * the spec's codes; nothing is stored when a rule refuses. Request shapes are the caller's to validate
 * (the API with ajv, src/schemas/api-notifications.ts). Every tier has channels (docs/decisions.md,
 * "Notification channels").
 */
export interface NotificationServiceDeps {
  db: Db;
  clock: Clock;
  /** OUTBOUND_ALLOW_CIDRS: addresses a Slack or Teams URL may resolve to despite the outbound block. */
  outboundAllow: CidrList;
  /** Replaces the system resolver (tests). */
  lookup?: LookupAllFn;
  /** Where a refused host's addresses are logged: the process log unless set (the admin CLI: stderr, as stdout is its answer). */
  refusalLog?: RefusalLog;
}

/** Who acts: the workspace and environment of the key or session. */
export interface Actor {
  scope: Scope;
}

/** Channels per workspace and environment: enough for every team's room, too few to make the mailer a megaphone. */
export const MAX_CHANNELS = 50;

export async function createChannel(
  deps: NotificationServiceDeps,
  actor: Actor,
  input: { type: ChannelType; target: string; events: NotificationEvent[] },
): Promise<NotificationChannelRow> {
  const target = await checkChannelTarget(input.type, input.target, deps.outboundAllow, {
    lookup: deps.lookup,
    log: deps.refusalLog,
  });
  if ((await countChannels(deps.db, actor.scope)) >= MAX_CHANNELS)
    throw new ApiError(
      'invalid_request',
      `a workspace has at most ${MAX_CHANNELS} notification channels per environment; remove one first`,
    );
  const row = {
    id: newNotificationChannelId(),
    workspace_id: actor.scope.workspaceId,
    mode: actor.scope.mode,
    type: input.type,
    target,
    events: input.events,
    created_at: deps.clock.now(),
  };
  await insertChannel(deps.db, row);
  return { ...row, deleted_at: null };
}

export async function listWorkspaceChannels(
  deps: Pick<NotificationServiceDeps, 'db'>,
  actor: Actor,
  page: { limit: number; after?: { createdAt: string; id: string } },
) {
  return listChannels(deps.db, actor.scope, page);
}

/** The channel of this workspace and environment, or 404 notification_channel_not_found. */
export async function requireChannel(
  deps: Pick<NotificationServiceDeps, 'db'>,
  actor: Actor,
  channelId: string,
): Promise<NotificationChannelRow> {
  const channel = hasIdShape('notification_channel', channelId)
    ? await findChannel(deps.db, actor.scope, channelId)
    : undefined;
  if (!channel) throw channelNotFound(channelId);
  return channel;
}

/** Removes a channel: later events are not sent to it, and a message being retried to it stops. */
export async function removeChannel(deps: NotificationServiceDeps, actor: Actor, channelId: string): Promise<void> {
  const removed =
    hasIdShape('notification_channel', channelId) &&
    (await deleteChannel(deps.db, actor.scope, channelId, deps.clock.now()));
  if (!removed) throw channelNotFound(channelId);
}

function channelNotFound(channelId: string): ApiError {
  // Ids of another shape are not echoed: they may hold anything.
  return new ApiError(
    'notification_channel_not_found',
    `no notification channel ${hasIdShape('notification_channel', channelId) ? channelId : 'with this id'} in this workspace`,
  );
}
