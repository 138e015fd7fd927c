import { PostForm, When } from '../components';
import type { DashboardContext } from '../state';
import { ProblemNotice } from './audits-notices';
import { RecordTable, RowAction } from './record-table';

/** A channel as the API shows it (src/presenters/notification-channels.ts). */
export interface ChannelItem {
  channel_id: string;
  type: string;
  target: string;
  events: readonly string[];
  created_at: string;
}

/** What the add form shows: nothing yet, or what was typed before a refusal. */
export interface ChannelFormValues {
  type: string;
  target: string;
  events: readonly string[];
}

export interface ChannelsPageProps {
  ctx: DashboardContext;
  /** '' for live data, '/test' for test data. */
  basePath: string;
  /** Viewers read; developers and owners add and remove. */
  canEdit: boolean;
  types: readonly string[];
  events: readonly string[];
  channels: ChannelItem[];
  /** At most this many per workspace and mode (the service's limit). */
  max: number;
  form?: ChannelFormValues;
  added: boolean;
  problem?: { message: string; requestId?: string };
}

const TYPE_NAMES: Record<string, string> = { email: 'E-mail', slack: 'Slack', teams: 'Microsoft Teams' };

/** What each event tells people (README, "Notification channels"). */
const EVENT_MEANINGS: Record<string, string> = {
  'site.regressed': 'a monitored site scored 5 or more points lower, or has a new high or critical finding',
  'audit.failed': 'an audit failed after all automatic retries',
  'webhook.failing': 'every delivery to a webhook has been failing for most of the time before it is disabled',
  'webhook.disabled': 'a webhook was disabled after failing for days',
};

/**
 * `/notification-channels`: the people told when something needs them — an e-mail address, a Slack
 * or a Microsoft Teams incoming webhook — and of which events. Every plan has them.
 */
export function ChannelsPage(props: ChannelsPageProps) {
  return (
    <>
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      {props.added ? (
        <p class="notice notice-success" role="status">
          Channel added.
        </p>
      ) : null}
      {props.basePath === '/test' ? (
        <p class="hint">
          Channels of test data are told of test audits, and their messages go to the mock receiver: nothing reaches a
          real inbox or channel.
        </p>
      ) : null}
      {props.canEdit ? <AddChannelForm {...props} /> : null}
      <ChannelTable {...props} />
    </>
  );
}

function AddChannelForm(props: ChannelsPageProps) {
  const form = props.form ?? { type: 'email', target: '', events: props.events };
  return (
    <PostForm ctx={props.ctx} action={`${props.basePath}/notification-channels`} class="card">
      <h2>Add a channel</h2>
      <label for="channel-type">Type</label>
      <select id="channel-type" name="type">
        {props.types.map((type) => (
          <option value={type} selected={type === form.type}>
            {TYPE_NAMES[type] ?? type}
          </option>
        ))}
      </select>
      <label for="channel-target">E-mail address or incoming-webhook URL</label>
      <input
        id="channel-target"
        name="target"
        type="text"
        required
        value={form.target}
        placeholder="ops@example.com or https://hooks.slack.com/services/…"
        aria-describedby="channel-target-hint"
        autoComplete="off"
      />
      <p class="hint" id="channel-target-hint">
        For Slack and Teams, the incoming webhook's https URL: it is the credential that posts to the channel, so it is
        shown only to members of this workspace.
      </p>
      <fieldset>
        <legend>Events</legend>
        {props.events.map((event) => (
          <label class="checkbox">
            <input type="checkbox" name="events" value={event} checked={form.events.includes(event)} /> {event}:{' '}
            {EVENT_MEANINGS[event] ?? event}
          </label>
        ))}
      </fieldset>
      <button type="submit">Add channel</button>
    </PostForm>
  );
}

function ChannelTable(props: ChannelsPageProps) {
  if (props.channels.length === 0) return <p>No notification channels yet.</p>;
  return (
    <RecordTable
      caption={`Notification channels (${props.channels.length} of at most ${props.max})`}
      columns={['Type', 'Target', 'Events', 'Added']}
      items={props.channels}
      row={(channel) => ({
        head: TYPE_NAMES[channel.type] ?? channel.type,
        cells: [<code>{channel.target}</code>, channel.events.join(', '), <When at={channel.created_at} />],
      })}
      actions={
        props.canEdit
          ? (channel) => (
              <RowAction
                ctx={props.ctx}
                action={`${props.basePath}/notification-channels/${channel.channel_id}/remove`}
                confirm={`Remove the channel to ${channel.target}? Messages to it stop at once.`}
                label="Remove"
                ariaLabel={`Remove channel to ${channel.target}`}
                danger
              />
            )
          : undefined
      }
    />
  );
}
