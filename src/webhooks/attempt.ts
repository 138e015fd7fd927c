import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { outboundRequest } from '../outbound/client';
import { classifyOutboundError } from '../outbound/errors';
import { parseCidrList, type CidrList } from '../outbound/policy';
import { loadDelivery } from './repository';
import { deliveryHeaders } from './signing';

const EXCERPT_BYTES = 1024;
// The operator-configured mock receiver of test mode is trusted, wherever it lives.
const ANYWHERE = parseCidrList('0.0.0.0/0,::/0');

export interface AttemptDeps {
  db: Db;
  clock: Clock;
  timeoutMs: number;
  allow: CidrList;
  testMockUrl: string;
}

export interface AttemptOutcome {
  delivered: boolean;
  /** Nothing more to try: the webhook was removed (or the delivery no longer exists). */
  stop: boolean;
}

/** How the attempt's outcome is written: at once by default; the activity waits out database outages. */
export type StoreStep = <T>(step: () => Promise<T>) => Promise<T>;
const storeAtOnce: StoreStep = (step) => step();

/**
 * One signed POST of a delivery (re-signed with a fresh timestamp), recorded in the delivery log.
 * 2xx within the time-out acknowledges; redirects are not followed (a 3xx is non-2xx). Test-mode
 * deliveries go to the mock receiver, never to the customer's URL. A non-2xx answer or a network
 * error is an outcome, recorded; only a database error throws (before the POST, or from `store`).
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  input: { deliveryId: string; attempt: number; trigger: 'automatic' | 'manual'; nextDelayMs: number | null },
  store: StoreStep = storeAtOnce,
): Promise<AttemptOutcome> {
  const delivery = await loadDelivery(deps.db, input.deliveryId);
  // Gone with its workspace: nothing left to deliver to.
  if (!delivery) return { delivered: false, stop: true };
  if (delivery.webhook_deleted_at) {
    await deps
      .db('deliveries')
      .where({ id: delivery.id })
      .whereNot({ state: 'delivered' })
      .update({ state: 'failed', next_attempt_at: null });
    return { delivered: false, stop: true };
  }
  const startedAt = deps.clock.now();
  const started = performance.now();
  const target = delivery.mode === 'test' ? deps.testMockUrl : delivery.url;
  const headers = deliveryHeaders({
    secret: delivery.secret,
    event: delivery.event,
    auditId: delivery.audit_id,
    deliveryId: delivery.id,
    attempt: input.attempt,
    body: delivery.payload,
    timestampSeconds: Math.floor(startedAt.getTime() / 1000),
  });
  const { statusCode, errorClass, errorMessage, excerpt } = await postDelivery({
    url: target,
    headers,
    body: delivery.payload,
    timeoutMs: deps.timeoutMs,
    allow: delivery.mode === 'test' ? ANYWHERE : deps.allow,
  });
  const delivered = errorClass === null;
  const durationMs = Math.round(performance.now() - started);
  const nextAttemptAt =
    !delivered && input.nextDelayMs !== null ? new Date(startedAt.getTime() + durationMs + input.nextDelayMs) : null;
  await store(() =>
    deps.db.transaction(async (trx) => {
      await trx('delivery_attempts')
        .insert({
          delivery_id: delivery.id,
          attempt: input.attempt,
          trigger: input.trigger,
          started_at: startedAt,
          duration_ms: durationMs,
          status_code: statusCode,
          error_class: errorClass,
          error_message: errorMessage,
          response_excerpt: excerpt,
          next_attempt_at: nextAttemptAt,
        })
        .onConflict(['delivery_id', 'attempt'])
        .merge();
      await trx('deliveries')
        .where({ id: delivery.id })
        .update({
          attempts: trx.raw('greatest(attempts, ?)', [input.attempt]),
          last_attempt_at: startedAt,
          next_attempt_at: nextAttemptAt,
          ...(delivered ? { state: 'delivered', delivered_at: startedAt } : {}),
        });
    }),
  );
  return { delivered, stop: false };
}

interface PostResult {
  statusCode: number | null;
  /** null when acknowledged (2xx); else non_2xx or the network error's class. */
  errorClass: string | null;
  errorMessage: string | null;
  excerpt: string | null;
}

/** The POST itself: any answer or network error becomes a result to record, never an exception. */
async function postDelivery(request: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allow: CidrList;
}): Promise<PostResult> {
  try {
    const response = await outboundRequest({
      ...request,
      method: 'POST',
      maxBodyBytes: EXCERPT_BYTES,
    });
    const statusCode = response.status;
    const errorClass = statusCode < 200 || statusCode > 299 ? 'non_2xx' : null;
    return { statusCode, errorClass, errorMessage: null, excerpt: response.body.toString('utf8') };
  } catch (err) {
    return {
      statusCode: null,
      errorClass: classifyOutboundError(err),
      errorMessage: (err as Error).message.slice(0, 500),
      excerpt: null,
    };
  }
}

/** After the automatic schedule: failed unless some attempt succeeded. */
export async function markDeliveryFailed(db: Db, deliveryId: string): Promise<void> {
  await db('deliveries').where({ id: deliveryId, state: 'pending' }).update({ state: 'failed', next_attempt_at: null });
}
