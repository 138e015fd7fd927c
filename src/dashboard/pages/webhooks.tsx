import { shortTime } from './audits-labels';
import { ProblemNotice, UpgradeNotice } from './audits-notices';
import { DEFAULT_WEBHOOK_EVENTS, type WebhookEvent } from '../../webhooks/events';

export interface WebhookItem {
  webhook_id: string;
  url: string;
  events: readonly string[];
  created_at: string;
  /** enabled unless disabled after days of failures (src/presenters/webhooks.ts). */
  status?: string;
  disabled_at?: string | null;
  disabled_reason?: string | null;
  /** When its current streak of nothing but failed attempts began. */
  failing_since?: string | null;
  /** Until when the secret before the last rotation also signs. */
  previous_secret_expires_at?: string | null;
}

export interface WebhooksPageProps {
  basePath: string;
  plansHref: string;
  csrfToken: string;
  /** Whether the account's tier includes webhooks (pro and up). */
  allowed: boolean;
  /** Viewers read; developers and owners add and remove. */
  canEdit: boolean;
  /** Every event a webhook may subscribe to. */
  events: readonly string[];
  webhooks: WebhookItem[];
  /** The webhook just added: the only time its secret is shown. */
  created?: WebhookItem & { secret: string };
  problem?: { message: string; requestId?: string };
  /** The URL typed before a refused add, shown again. */
  url?: string;
}

/** The workspace's webhooks in this mode: add one (its secret shown once), list, remove. */
export function WebhooksPage(props: WebhooksPageProps) {
  if (!props.allowed) return <UpgradeNotice feature="Webhooks" tier="pro" plansHref={props.plansHref} />;
  const base = `${props.basePath}/webhooks`;
  return (
    <>
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      {props.created ? <CreatedSecret created={props.created} /> : null}
      {props.canEdit ? <AddWebhookForm {...props} action={base} /> : null}
      <WebhookTable {...props} base={base} />
    </>
  );
}

function CreatedSecret(props: { created: WebhookItem & { secret: string } }) {
  return (
    <section class="card notice notice-success" aria-labelledby="secret-heading">
      <h2 id="secret-heading">Webhook added</h2>
      <p>
        Copy the signing secret now: it is shown only once. Use it to check the <code>Webhook-Signature</code> header of
        each delivery to <code>{props.created.url}</code>.
      </p>
      <label for="webhook-secret">Signing secret</label>
      <input id="webhook-secret" type="text" readOnly value={props.created.secret} autoComplete="off" data-copy />
    </section>
  );
}

function AddWebhookForm(props: WebhooksPageProps & { action: string }) {
  return (
    <form method="post" action={props.action} class="card">
      <h2>Add a webhook</h2>
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <label for="webhook-url">Endpoint URL</label>
      <input
        id="webhook-url"
        name="url"
        type="url"
        required
        placeholder="https://hooks.example.com/audits"
        value={props.url ?? ''}
      />
      <fieldset>
        <legend>Events</legend>
        {props.events.map((event) => (
          <label class="checkbox">
            {/* site.regressed is opt-in: only the spec's three start ticked. */}
            <input
              type="checkbox"
              name="events"
              value={event}
              checked={DEFAULT_WEBHOOK_EVENTS.includes(event as WebhookEvent)}
            />{' '}
            {event}
          </label>
        ))}
      </fieldset>
      <button type="submit">Add webhook</button>
    </form>
  );
}

function WebhookTable(props: WebhooksPageProps & { base: string }) {
  if (props.webhooks.length === 0) return <p>No webhooks yet.</p>;
  return (
    <table>
      <caption>Webhooks</caption>
      <thead>
        <tr>
          <th scope="col">Endpoint URL</th>
          <th scope="col">Events</th>
          <th scope="col">Status</th>
          <th scope="col">Added</th>
          {props.canEdit ? <th scope="col">Actions</th> : null}
        </tr>
      </thead>
      <tbody>
        {props.webhooks.map((webhook) => (
          <tr>
            <th scope="row">
              <a href={`${props.base}/${webhook.webhook_id}`} aria-label={`Deliveries to ${webhook.url}`}>
                <code>{webhook.url}</code>
              </a>
            </th>
            <td>{webhook.events.join(', ')}</td>
            <td>{webhookStatus(webhook)}</td>
            <td>
              <time dateTime={webhook.created_at}>{shortTime(webhook.created_at)}</time>
            </td>
            {props.canEdit ? (
              <td>
                <form
                  method="post"
                  action={`${props.base}/${webhook.webhook_id}/remove`}
                  data-confirm={`Remove the webhook to ${webhook.url}? Deliveries to it stop at once.`}
                >
                  <input type="hidden" name="_csrf" value={props.csrfToken} />
                  <button type="submit" class="danger" aria-label={`Remove webhook to ${webhook.url}`}>
                    Remove
                  </button>
                </form>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Status in words (never colour alone): disabled, failing, or enabled. */
function webhookStatus(webhook: WebhookItem): string {
  if (webhook.status === 'disabled') return 'Disabled';
  return webhook.failing_since ? 'Enabled, failing' : 'Enabled';
}
