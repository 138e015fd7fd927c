import { shortTime, timeToSecond } from './audits-labels';

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

/** The delivery log's filters as typed (empty: no filter), and what each may be. */
export interface DeliveryFilterView {
  status: string;
  event: string;
  since: string;
  choices: { statuses: readonly string[]; events: readonly string[] };
}

export interface DeliveryLogProps {
  basePath: string;
  csrfToken: string;
  canEdit: boolean;
  /** The time the page is rendered at: decides which deliveries are still in the redelivery window. */
  now: Date;
  webhook: { webhook_id: string };
  deliveries: DeliveryView[];
  nextCursor: string | null;
  /** The page shown is not the first (a cursor was followed). */
  paged?: boolean;
  filter?: DeliveryFilterView;
  /** A retry just requested. */
  retried?: string;
}

const STATE_LABELS: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

/** The delivery log: filters (status, event, since), every delivery with every attempt, Retry, and "Next". */
export function DeliveryLog(props: DeliveryLogProps) {
  const self = `${props.basePath}/webhooks/${props.webhook.webhook_id}`;
  const filtered = !!props.filter && !!(props.filter.status || props.filter.event || props.filter.since);
  const query = (extra: Record<string, string>) => {
    const params = new URLSearchParams();
    for (const name of ['status', 'event', 'since'] as const) {
      const value = props.filter?.[name];
      if (value) params.set(name, value);
    }
    for (const [name, value] of Object.entries(extra)) params.set(name, value);
    const text = params.toString();
    return text ? `${self}?${text}` : self;
  };
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      {props.filter ? <DeliveryFilters filter={props.filter} self={self} filtered={filtered} /> : null}
      {props.deliveries.length === 0 ? (
        <p>{filtered ? 'No delivery matches these filters.' : 'Nothing has been delivered to this webhook yet.'}</p>
      ) : null}
      {props.deliveries.map((delivery) => (
        <DeliveryCard {...props} delivery={delivery} self={self} />
      ))}
      {props.nextCursor || props.paged ? (
        <nav class="pager" aria-label="More deliveries">
          {props.paged ? <a href={query({})}>Newest</a> : null}
          {props.nextCursor ? <a href={query({ cursor: props.nextCursor })}>Next</a> : null}
        </nav>
      ) : null}
    </section>
  );
}

function DeliveryFilters(props: { filter: DeliveryFilterView; self: string; filtered: boolean }) {
  const { filter } = props;
  return (
    <form method="get" action={props.self} class="filters" aria-label="Filter deliveries">
      <div>
        <label for="filter-status">Status</label>
        <select id="filter-status" name="status">
          <option value="">Any</option>
          {filter.choices.statuses.map((status) => (
            <option value={status} selected={filter.status === status}>
              {STATE_LABELS[status] ?? status}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="filter-event">Event</label>
        <select id="filter-event" name="event">
          <option value="">Any</option>
          {filter.choices.events.map((event) => (
            <option value={event} selected={filter.event === event}>
              {event}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="filter-since">Since (UTC)</label>
        <input id="filter-since" name="since" type="datetime-local" value={sinceFieldValue(filter.since)} />
      </div>
      <button type="submit" class="secondary">
        Filter
      </button>
      {props.filtered ? <a href={props.self}>Clear filters</a> : null}
    </form>
  );
}

/** A datetime-local field shows only "YYYY-MM-DDTHH:MM": an RFC 3339 time is shown that way, in UTC. */
function sinceFieldValue(since: string): string {
  if (!since || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(since)) return since;
  const at = new Date(since);
  return Number.isNaN(at.getTime()) ? since : at.toISOString().slice(0, 16);
}

function DeliveryCard(props: DeliveryLogProps & { delivery: DeliveryView; self: string }) {
  const { delivery } = props;
  const inWindow = props.now.getTime() < Date.parse(delivery.redeliverable_until);
  return (
    <section class="card delivery" aria-labelledby={`delivery-${delivery.delivery_id}`}>
      <h3 id={`delivery-${delivery.delivery_id}`}>
        {delivery.event} · {STATE_LABELS[delivery.state] ?? delivery.state}
      </h3>
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
      <AttemptTable attempts={delivery.attempts} test={delivery.event === 'webhook.test'} />
      {delivery.state === 'failed' && props.canEdit && inWindow && delivery.event !== 'webhook.test' ? (
        <form method="post" action={`${props.self}/deliveries/${delivery.delivery_id}/retry`}>
          <input type="hidden" name="_csrf" value={props.csrfToken} />
          <button type="submit" aria-describedby={`delivery-${delivery.delivery_id}`}>
            Retry
          </button>
        </form>
      ) : null}
      {delivery.state === 'failed' && delivery.event === 'webhook.test' ? (
        <p class="note">A test event is never sent again: send a new one to check the endpoint.</p>
      ) : null}
      {delivery.state === 'failed' && !inWindow && delivery.event !== 'webhook.test' ? (
        <p class="note">
          Retry was possible until {shortTime(delivery.redeliverable_until)}; open the audit to get its result instead.
        </p>
      ) : null}
    </section>
  );
}

function AttemptTable(props: { attempts: DeliveryAttemptView[]; test: boolean }) {
  if (props.attempts.length === 0) return <p>No attempt yet.</p>;
  return (
    <div class="table-wrap">
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
              <td>{props.test ? 'Test event' : attempt.trigger === 'manual' ? 'Retry' : 'Automatic'}</td>
              <td>{attempt.duration_ms} ms</td>
              <td>{attemptOutcome(attempt)}</td>
              <td>{attempt.response_excerpt ? <code>{attempt.response_excerpt}</code> : '—'}</td>
              <td>{attempt.next_attempt_at ? timeToSecond(attempt.next_attempt_at) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function attemptOutcome(attempt: DeliveryAttemptView): string {
  if (attempt.status_code !== null) return `HTTP ${attempt.status_code}`;
  if (attempt.error_class) return `${attempt.error_class}${attempt.error_message ? `: ${attempt.error_message}` : ''}`;
  return '—';
}
