import type { DeliveryAttemptRow, DeliveryRow } from '../webhooks/repository';
import { iso } from './iso';

/**
 * One entry of a webhook's delivery log with its attempts. Manual redelivery is possible for
 * `redeliveryWindowMs` after the delivery was created.
 */
export function presentDelivery(row: DeliveryRow, attempts: DeliveryAttemptRow[], redeliveryWindowMs: number) {
  return {
    delivery_id: row.id,
    event: row.event,
    audit_id: row.audit_id,
    url: row.url,
    state: row.state,
    created_at: iso(row.created_at),
    next_attempt_at: iso(row.next_attempt_at),
    redeliverable_until: iso(new Date(new Date(row.created_at).getTime() + redeliveryWindowMs)),
    attempts: attempts.filter((a) => a.delivery_id === row.id).map((a) => presentAttempt(a)),
  };
}

/** The answer to a manual redelivery: accepted, the delivery's state as it was when asked. */
export function presentRedeliveryRequested(delivery: Pick<DeliveryRow, 'id' | 'state'>) {
  return { delivery_id: delivery.id, state: delivery.state, redelivery: 'requested' };
}

function presentAttempt(a: DeliveryAttemptRow) {
  return {
    attempt: a.attempt,
    trigger: a.trigger,
    started_at: iso(a.started_at),
    duration_ms: a.duration_ms,
    status_code: a.status_code,
    error_class: a.error_class,
    error_message: a.error_message,
    response_excerpt: a.response_excerpt,
    next_attempt_at: iso(a.next_attempt_at),
  };
}
