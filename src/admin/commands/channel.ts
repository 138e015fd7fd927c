import { InvalidArgumentError, type Command } from 'commander';
import { systemClock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { workspaceTier } from '../../accounts/repository';
import {
  CHANNEL_TARGET_MAX,
  channelCreateRequest,
  eventsProblem,
  isChannelType,
  type ChannelInputProblem,
} from '../../notifications/channel-input';
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
import { NOTIFICATION_CHANNEL_TYPES, NOTIFICATION_EVENTS } from '../../schemas/api-notifications';
import { MODES, type Mode } from '../../schemas/audit';
import { modeOption } from '../options';
import { run } from '../run';

/** Each option's part of the rule (src/notifications/channel-input.ts), said for the option's usage. */
const PROBLEMS: Record<ChannelInputProblem, string> = {
  type_unknown: `must be one of ${NOTIFICATION_CHANNEL_TYPES.join(', ')}`,
  target_empty: '--target must not be empty',
  target_too_long: `--target must be at most ${CHANNEL_TARGET_MAX} characters`,
  events_empty: 'must name at least one event',
  events_unknown: `must be events from ${NOTIFICATION_EVENTS.join(', ')}, separated by commas`,
  events_repeated: 'must name each event once',
};

const typeOption = (value: string): string => {
  if (!isChannelType(value)) throw new InvalidArgumentError(PROBLEMS.type_unknown);
  return value;
};

/** A comma-separated list of events, each once, as the API's request body takes them. */
const eventsOption = (value: string): string[] => {
  const events = value.split(',').map((event) => event.trim());
  const problem = eventsProblem(events);
  if (problem) throw new InvalidArgumentError(PROBLEMS[problem]);
  return events;
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
  type: string;
  target: string;
  events: string[];
  json?: boolean;
}

async function createCommand(db: Db, config: Config, opts: CreateOptions): Promise<{ json: object; text: string }> {
  // The options' parsers have checked type and events; the target is checked here, by the same rule.
  const parsed = channelCreateRequest({ type: opts.type, target: opts.target, events: opts.events });
  if (parsed.problem) throw new Error(PROBLEMS[parsed.problem]);
  const row = await createChannel(serviceOf(db, config), await actor(db, opts.workspace, opts.mode), parsed.request);
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
