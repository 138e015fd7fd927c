import { shortTime, timeToSecond } from './audits-labels';
import { ProblemNotice } from './audits-notices';
import type { WebhookItem } from './webhooks';

export interface DeliveryAttemptView {
  attempt: number;
  trigger: string;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error_class: string | null;
  error_message: string | null;
  response_excerpt: string | null;
  next_attempt_at: string | null;
}

export interface DeliveryView {
  delivery_id: string;
  event: string;
  /** null for events about no audit (webhook.test, webhook.disabled). */
  audit_id: string | null;
  state: string;
  created_at: string;
  next_attempt_at: string | null;
  redeliverable_until: string;
  attempts: DeliveryAttemptView[];
}

export interface WebhookDetailProps {
  basePath: string;
  csrfToken: string;
  canRetry: boolean;
  /** The time the page is rendered at: decides which deliveries are still in the redelivery window. */
  now: Date;
  webhook: WebhookItem;
  deliveries: DeliveryView[];
  nextCursor: string | null;
  /** A retry just requested, or why it was refused. */
  retried?: string;
  problem?: { message: string; requestId?: string };
}

/** A webhook's delivery log: every delivery with every attempt, and Retry for failed ones in the window. */
export function WebhookDetailPage(props: WebhookDetailProps) {
  const self = `${props.basePath}/webhooks/${props.webhook.webhook_id}`;
  return (
    <>
      <p>
        <a href={`${props.basePath}/webhooks`}>All webhooks</a>
      </p>
      <p>
        Endpoint URL: <code>{props.webhook.url}</code>
      </p>
      <p>Events: {props.webhook.events.join(', ')}</p>
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      {props.retried ? (
        <div class="notice notice-success" role="status">
          <p>
            Retry of delivery <code>{props.retried}</code> requested: it is sent again in a moment with the same
            delivery id.
          </p>
        </div>
      ) : null}
      {props.deliveries.length === 0 ? <p>Nothing has been delivered to this webhook yet.</p> : null}
      {props.deliveries.map((delivery) => (
        <DeliveryCard {...props} delivery={delivery} self={self} />
      ))}
      {props.nextCursor ? (
        <p>
          <a href={`${self}?${new URLSearchParams({ cursor: props.nextCursor })}`}>Older deliveries</a>
        </p>
      ) : null}
    </>
  );
}

const STATE_LABELS: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

function DeliveryCard(props: WebhookDetailProps & { delivery: DeliveryView; self: string }) {
  const { delivery } = props;
  const inWindow = props.now.getTime() < Date.parse(delivery.redeliverable_until);
  return (
    <section class="card delivery" aria-labelledby={`delivery-${delivery.delivery_id}`}>
      <h2 id={`delivery-${delivery.delivery_id}`}>
        {delivery.event} · {STATE_LABELS[delivery.state] ?? delivery.state}
      </h2>
      <p>
        Delivery <code>{delivery.delivery_id}</code>
        {delivery.audit_id ? (
          <>
            {' '}
            for audit <a href={`${props.basePath}/audits/${delivery.audit_id}`}>{delivery.audit_id}</a>
          </>
        ) : null}
        , created <time dateTime={delivery.created_at}>{shortTime(delivery.created_at)}</time>
        {delivery.next_attempt_at ? (
          <>
            ; next attempt <time dateTime={delivery.next_attempt_at}>{shortTime(delivery.next_attempt_at)}</time>
          </>
        ) : null}
        .
      </p>
      <AttemptTable attempts={delivery.attempts} />
      {delivery.state === 'failed' && props.canRetry && inWindow ? (
        <form method="post" action={`${props.self}/deliveries/${delivery.delivery_id}/retry`}>
          <input type="hidden" name="_csrf" value={props.csrfToken} />
          <button type="submit" aria-describedby={`delivery-${delivery.delivery_id}`}>
            Retry
          </button>
        </form>
      ) : null}
      {delivery.state === 'failed' && !inWindow ? (
        <p class="note">
          Retry was possible until {shortTime(delivery.redeliverable_until)}; open the audit to get its result instead.
        </p>
      ) : null}
    </section>
  );
}

function AttemptTable(props: { attempts: DeliveryAttemptView[] }) {
  if (props.attempts.length === 0) return <p>No attempt yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Attempt</th>
          <th scope="col">Time</th>
          <th scope="col">Trigger</th>
          <th scope="col">Duration</th>
          <th scope="col">Outcome</th>
          <th scope="col">Response</th>
          <th scope="col">Next attempt</th>
        </tr>
      </thead>
      <tbody>
        {props.attempts.map((attempt) => (
          <tr>
            <th scope="row">{attempt.attempt}</th>
            <td>
              <time dateTime={attempt.started_at}>{timeToSecond(attempt.started_at)}</time>
            </td>
            <td>{attempt.trigger === 'manual' ? 'Retry' : 'Automatic'}</td>
            <td>{attempt.duration_ms} ms</td>
            <td>{attemptOutcome(attempt)}</td>
            <td>{attempt.response_excerpt ? <code>{attempt.response_excerpt}</code> : '—'}</td>
            <td>{attempt.next_attempt_at ? timeToSecond(attempt.next_attempt_at) : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function attemptOutcome(attempt: DeliveryAttemptView): string {
  if (attempt.status_code !== null) return `HTTP ${attempt.status_code}`;
  if (attempt.error_class) return `${attempt.error_class}${attempt.error_message ? `: ${attempt.error_message}` : ''}`;
  return '—';
}
