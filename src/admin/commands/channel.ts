import { InvalidArgumentError, type Command } from 'commander';
import { systemClock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { workspaceTier } from '../../accounts/repository';
import {
  createChannel,
  listWorkspaceChannels,
  MAX_CHANNELS,
  removeChannel,
  type Actor,
  type NotificationServiceDeps,
} from '../../notifications/service';
import type { RefusalLog } from '../../outbound/refusal';
import { presentNotificationChannel } from '../../presenters/notification-channels';
import {
  NOTIFICATION_CHANNEL_TYPES,
  NOTIFICATION_EVENTS,
  type CreateNotificationChannelBody,
} from '../../schemas/api-notifications';
import { MODES, type Mode } from '../../schemas/audit';
import { modeOption } from '../options';
import { run } from '../run';

type ChannelType = CreateNotificationChannelBody['type'];
type ChannelEvents = CreateNotificationChannelBody['events'];

const typeOption = (value: string): ChannelType => {
  if (!(NOTIFICATION_CHANNEL_TYPES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${NOTIFICATION_CHANNEL_TYPES.join(', ')}`);
  return value as ChannelType;
};

/** A comma-separated list of events, each once, as the API's request body takes them. */
const eventsOption = (value: string): ChannelEvents => {
  const events = value.split(',').map((event) => event.trim());
  if (!events.every((event) => (NOTIFICATION_EVENTS as readonly string[]).includes(event)))
    throw new InvalidArgumentError(`must be events from ${NOTIFICATION_EVENTS.join(', ')}, separated by commas`);
  if (new Set(events).size !== events.length) throw new InvalidArgumentError('must name each event once');
  return events as ChannelEvents;
};

/**
 * `channel create|list|delete`: notification channels of a workspace (README, "Notification
 * channels"), through the module the API's routes call (src/notifications/service.ts). Every tier.
 */
export function registerChannelCommands(program: Command): void {
  const channel = program
    .command('channel')
    .alias('channels')
    .description('Notification channels of a workspace: e-mail, Slack and Teams (every tier)');
  channel
    .command('create')
    .description('Tell an e-mail address, a Slack or a Teams incoming webhook of these events')
    .requiredOption('--workspace <id>', 'workspace id (ws_…)')
    .requiredOption('--mode <mode>', 'test or live', modeOption)
    .requiredOption('--type <type>', NOTIFICATION_CHANNEL_TYPES.join(', '), typeOption)
    .requiredOption('--target <text>', 'the e-mail address, or the incoming-webhook URL (https)')
    .requiredOption('--events <list>', `comma-separated: ${NOTIFICATION_EVENTS.join(', ')}`, eventsOption)
    .option('--json', 'print one JSON object')
    .action((opts: CreateOptions) => run(opts.json, (db, config) => createCommand(db, config, opts)));
  channel
    .command('list')
    .description("List a workspace's channels (both modes unless --mode)")
    .requiredOption('--workspace <id>', 'workspace id (ws_…)')
    .option('--mode <mode>', 'test or live (default: both)', modeOption)
    .option('--json', 'print one JSON object')
    .action((opts: { workspace: string; mode?: Mode; json?: boolean }) =>
      run(opts.json, async (db) => {
        const listed: Record<string, ReturnType<typeof presentNotificationChannel>[]> = {};
        for (const mode of opts.mode ? [opts.mode] : MODES) {
          const page = await listWorkspaceChannels({ db }, await actor(db, opts.workspace, mode), {
            limit: MAX_CHANNELS,
          });
          listed[mode] = page.rows.map(presentNotificationChannel);
        }
        const lines = Object.entries(listed).flatMap(([mode, channels]) =>
          channels.map(
            (c) => `${c.channel_id}  ${mode.padEnd(4)}  ${c.type.padEnd(5)}  ${c.target}  ${c.events.join(',')}`,
          ),
        );
        return {
          json: { workspace_id: opts.workspace, ...listed },
          text: lines.join('\n') || `No channels in ${opts.workspace}.`,
        };
      }),
    );
  channel
    .command('delete')
    .description('Remove a channel: later events are not sent to it, and a message being retried to it stops')
    .requiredOption('--workspace <id>', 'workspace id (ws_…)')
    .requiredOption('--mode <mode>', 'test or live', modeOption)
    .requiredOption('--channel <id>', 'channel id (nch_…)')
    .option('--json', 'print one JSON object')
    .action((opts: { workspace: string; mode: Mode; channel: string; json?: boolean }) =>
      run(opts.json, async (db, config) => {
        await removeChannel(serviceOf(db, config), await actor(db, opts.workspace, opts.mode), opts.channel);
        return { json: { channel_id: opts.channel, deleted: true }, text: `Channel ${opts.channel} deleted.` };
      }),
    );
}

interface CreateOptions {
  workspace: string;
  mode: Mode;
  type: ChannelType;
  target: string;
  events: ChannelEvents;
  json?: boolean;
}

async function createCommand(db: Db, config: Config, opts: CreateOptions): Promise<{ json: object; text: string }> {
  const input = { type: opts.type, target: opts.target, events: opts.events };
  const row = await createChannel(serviceOf(db, config), await actor(db, opts.workspace, opts.mode), input);
  const created = presentNotificationChannel(row);
  return {
    json: created,
    text: `Created ${created.type} channel ${created.channel_id} for ${opts.workspace} (${opts.mode}): ${created.events.join(', ')} → ${created.target}.`,
  };
}

function serviceOf(db: Db, config: Config): NotificationServiceDeps {
  const refusalLog: RefusalLog = ({ msg, host, kind, detail }) =>
    process.stderr.write(`${msg}: ${host} (${kind}: ${detail})\n`);
  return { db, clock: systemClock, outboundAllow: config.outboundAllow, refusalLog };
}

/** The workspace in this mode, once it is known to exist (NotFoundError otherwise). */
async function actor(db: Db, workspaceId: string, mode: Mode): Promise<Actor> {
  await workspaceTier(db, workspaceId);
  return { scope: { workspaceId, mode } };
}
