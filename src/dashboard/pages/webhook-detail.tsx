import { shortTime } from './audits-labels';
import { ProblemNotice } from './audits-notices';
import { DeliveryLog, type DeliveryLogProps } from './webhook-deliveries';
import type { WebhookItem } from './webhooks';

export type { DeliveryAttemptView, DeliveryView } from './webhook-deliveries';

/** A test event's outcome as src/presenters/webhooks.ts presents it to the API. */
export interface TestOutcomeView {
  delivery_id: string;
  delivered: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  error_message: string | null;
}

export interface WebhookDetailProps extends DeliveryLogProps {
  /** Developers and owners: test, rotate, enable and retry; viewers read. */
  canEdit: boolean;
  webhook: WebhookItem;
  /** WEBHOOK_DISABLE_AFTER_MS: how long a webhook may fail before it is disabled (0: never). */
  disableAfterMs?: number;
  /** A test event just sent: its outcome, read back from the delivery log. */
  tested?: TestOutcomeView;
  /** A rotation just made: the new secret, shown in this answer only. */
  rotated?: { secret: string; previous_secret_expires_at: string | null };
  /** The webhook was just enabled again. */
  enabled?: boolean;
  problem?: { message: string; requestId?: string };
}

/** Grace periods offered for a rotation (POST /webhooks/{id}/rotate-secret takes 0 to 7 days). */
const GRACE_CHOICES = [
  [0, 'None: the previous secret stops signing at once'],
  [3600, '1 hour'],
  [86_400, '1 day'],
  [604_800, '7 days'],
] as const;
const DEFAULT_GRACE = 86_400;

/**
 * A webhook's page (docs/dashboard.md, "Webhooks pages"): its state (disabled, failing), "Send test
 * event", "Rotate secret" and "Enable", and its delivery log with filters and Retry. Every action is
 * a POST form with the session's CSRF token, answered by src/webhooks' service module.
 */
export function WebhookDetailPage(props: WebhookDetailProps) {
  const self = `${props.basePath}/webhooks/${props.webhook.webhook_id}`;
  return (
    <>
      <p>
        <a href={`${props.basePath}/webhooks`}>All webhooks</a>
      </p>
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      <ActionNotices {...props} />
      <WebhookState {...props} self={self} />
      {props.canEdit ? <WebhookActions {...props} self={self} /> : null}
      <DeliveryLog {...props} />
    </>
  );
}

function ActionNotices(props: WebhookDetailProps) {
  return (
    <>
      {props.tested ? <TestOutcome outcome={props.tested} /> : null}
      {props.rotated ? <RotatedSecret {...props.rotated} /> : null}
      {props.enabled ? (
        <div class="notice" role="status">
          <p>Webhook enabled: deliveries resume with the next event.</p>
        </div>
      ) : null}
      {props.retried ? (
        <div class="notice notice-success" role="status">
          <p>
            Retry of delivery <code>{props.retried}</code> requested: it is sent again in a moment with the same
            delivery id.
          </p>
        </div>
      ) : null}
    </>
  );
}

function TestOutcome(props: { outcome: TestOutcomeView }) {
  const o = props.outcome;
  const answer = o.status_code !== null ? `HTTP ${o.status_code}` : (o.error ?? 'no answer');
  const detail = o.status_code === null && o.error_message ? ` (${o.error_message})` : '';
  return (
    <div class={o.delivered ? 'notice notice-success' : 'notice notice-error'} role="status">
      <p>
        {o.delivered
          ? `Test event delivered: ${answer} in ${o.duration_ms} ms.`
          : `Test event not delivered: ${answer}${detail} after ${o.duration_ms} ms.`}{' '}
        It is in the delivery log as <code>{o.delivery_id}</code>.
      </p>
    </div>
  );
}

function RotatedSecret(props: { secret: string; previous_secret_expires_at: string | null }) {
  return (
    <section class="card notice notice-success" aria-labelledby="rotated-heading">
      <h2 id="rotated-heading">Secret rotated</h2>
      <label for="rotated-secret">New signing secret</label>
      <input id="rotated-secret" type="text" readOnly value={props.secret} autoComplete="off" data-copy />
      <p class="hint">
        Copy it now: it is shown only once.{' '}
        {props.previous_secret_expires_at ? (
          <>
            Until <time dateTime={props.previous_secret_expires_at}>{shortTime(props.previous_secret_expires_at)}</time>{' '}
            every delivery is signed with both the new and the previous secret, so your endpoint can switch without
            refusing one.
          </>
        ) : (
          'The previous secret no longer signs deliveries.'
        )}
      </p>
    </section>
  );
}

function WebhookState(props: WebhookDetailProps & { self: string }) {
  const w = props.webhook;
  const disabled = w.status === 'disabled';
  return (
    <section class="card" aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">Endpoint</h2>
      <p>
        Endpoint URL: <code>{w.url}</code>
      </p>
      <p>Events: {w.events.join(', ')}</p>
      <p>
        Status: <strong>{disabled ? 'Disabled' : 'Enabled'}</strong>
      </p>
      {disabled ? <DisabledNotice {...props} /> : <FailingNotice {...props} />}
      {w.previous_secret_expires_at ? (
        <p class="hint">
          The previous signing secret also signs deliveries until{' '}
          <time dateTime={w.previous_secret_expires_at}>{shortTime(w.previous_secret_expires_at)}</time>.
        </p>
      ) : null}
    </section>
  );
}

const REASONS: Record<string, string> = {
  consecutive_failures: 'every delivery attempt to it failed for days',
};

function DisabledNotice(props: WebhookDetailProps & { self: string }) {
  const w = props.webhook;
  const reason = w.disabled_reason ? (REASONS[w.disabled_reason] ?? w.disabled_reason) : 'no reason recorded';
  return (
    <div class="notice notice-error" role="status">
      <p>
        Disabled{' '}
        {w.disabled_at ? (
          <>
            since <time dateTime={w.disabled_at}>{shortTime(w.disabled_at)}</time>
          </>
        ) : null}
        : {reason} (<code>{w.disabled_reason ?? 'disabled'}</code>). Nothing is sent to it until it is enabled. Check
        the endpoint with "Send test event" first.
      </p>
      {props.canEdit ? (
        <form method="post" action={`${props.self}/enable`}>
          <input type="hidden" name="_csrf" value={props.csrfToken} />
          <button type="submit">Enable</button>
        </form>
      ) : null}
    </div>
  );
}

function FailingNotice(props: WebhookDetailProps) {
  const since = props.webhook.failing_since;
  if (!since) return null;
  const days = props.disableAfterMs ? Math.round((props.disableAfterMs / 86_400_000) * 10) / 10 : 0;
  return (
    <p class="error" role="status">
      Every delivery attempt since <time dateTime={since}>{shortTime(since)}</time> has failed.
      {days > 0 ? ` The webhook is disabled after ${days} day${days === 1 ? '' : 's'} of nothing but failures.` : ''}
    </p>
  );
}

function WebhookActions(props: WebhookDetailProps & { self: string }) {
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Check and rotate</h2>
      <div class="cards">
        <div class="card">
          <h3>Test event</h3>
          <form method="post" action={`${props.self}/test`}>
            <input type="hidden" name="_csrf" value={props.csrfToken} />
            <p class="hint" id="test-hint">
              Sends one signed <code>webhook.test</code> event now, also to a disabled webhook, and shows how it went.
              It is never retried.
            </p>
            <p>
              <button type="submit" aria-describedby="test-hint">
                Send test event
              </button>
            </p>
          </form>
        </div>
        <div class="card">
          <h3>Signing secret</h3>
          <form
            method="post"
            action={`${props.self}/rotate-secret`}
            data-confirm="Rotate the signing secret? The new secret is shown once; your endpoint must accept it before the grace period ends."
          >
            <input type="hidden" name="_csrf" value={props.csrfToken} />
            <label for="grace-seconds">Grace period</label>
            <select id="grace-seconds" name="grace_seconds" aria-describedby="grace-hint">
              {GRACE_CHOICES.map(([seconds, label]) => (
                <option value={String(seconds)} selected={seconds === DEFAULT_GRACE}>
                  {label}
                </option>
              ))}
            </select>
            <p class="hint" id="grace-hint">
              How long the previous secret goes on signing every delivery beside the new one.
            </p>
            <p>
              <button type="submit" class="secondary">
                Rotate secret
              </button>
            </p>
          </form>
        </div>
      </div>
    </section>
  );
}
