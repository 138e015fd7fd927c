import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { outboundRequest } from '../outbound/client';
import { classifyOutboundError } from '../outbound/errors';
import { parseCidrList, type CidrList } from '../outbound/policy';
import { loadDelivery } from './repository';
import type { Mode } from '../schemas/audit';
import type { AttemptRecord } from '../../workflows/contracts';
import { deliveryHeaders, signingSecrets } from './signing';
import { responseExcerpt } from './excerpt';
import { storableText } from '../text/storable';
import { recordAttempt } from './attempt-log';
import { UNWATCHED, type FailureWatch } from './failing-streak';

const EXCERPT_BYTES = 1024;
// The operator-configured mock receiver of test mode is trusted, wherever it lives.
const ANYWHERE = parseCidrList('0.0.0.0/0,::/0');

export interface AttemptDeps {
  db: Db;
  clock: Clock;
  timeoutMs: number;
  allow: CidrList;
  testMockUrl: string;
  /** Where a webhook's new failing streak is reported (its WebhookHealthWorkflow); nowhere when unset. */
  watch?: FailureWatch;
}

export interface AttemptOutcome {
  delivered: boolean;
  /** Nothing more to try: the webhook was removed (or the delivery no longer exists). */
  stop: boolean;
  /**
   * The POST went out but its outcome could not be stored (the database refused it and `store` gave
   * up): stored later by `recordAttempt`, never by sending the attempt again.
   */
  unrecorded?: AttemptRecord;
}

/**
 * How the attempt's outcome is written: the activity waits out database outages; the local first
 * attempt tries once and, if that fails, hands the outcome back as `unrecorded`.
 */
export type StoreStep = <T>(step: () => Promise<T>) => Promise<T>;

/**
 * One attempt of a logged delivery (sendAttempt), recorded in the delivery log. A non-2xx answer or
 * a network error is an outcome, recorded; only a database error throws (before the POST, or from `store`).
 * An attempt is sent at most once once recorded: running its step again returns the recorded outcome.
 * A disabled webhook is sent nothing: the attempt is not made (docs/decisions.md, "Webhook lifecycle"),
 * and its delivery counts as failed unless a later attempt, once it is enabled again, gets through.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  input: { deliveryId: string; attempt: number; trigger: 'automatic' | 'manual'; nextDelayMs: number | null },
  store?: StoreStep,
): Promise<AttemptOutcome> {
  const delivery = await loadDelivery(deps.db, input.deliveryId);
  // Gone with its workspace: nothing left to deliver to.
  if (!delivery) return { delivered: false, stop: true };
  if (delivery.webhook_deleted_at || delivery.webhook_status === 'disabled') {
    await deps
      .db('deliveries')
      .where({ id: delivery.id })
      .whereNot({ state: 'delivered' })
      .update({ state: 'failed', next_attempt_at: null });
    return { delivered: false, stop: Boolean(delivery.webhook_deleted_at) };
  }
  // This attempt already went out and was recorded (its step is running again: a local first
  // attempt whose workflow task timed out, a retried activity): its outcome stands, nothing is resent.
  const recorded = await deps
    .db('delivery_attempts')
    .where({ delivery_id: delivery.id, attempt: input.attempt })
    .first('error_class');
  if (recorded) return { delivered: recorded.error_class === null, stop: false };
  const record = await sendAttempt(
    deps,
    {
      deliveryId: delivery.id,
      mode: delivery.mode,
      url: delivery.url,
      secrets: signingSecrets(delivery, deps.clock.now()),
      event: delivery.event,
      auditId: delivery.audit_id,
      payload: delivery.payload,
    },
    input,
  );
  const delivered = record.errorClass === null;
  if (store) {
    await store(() => recordAttempt(deps.db, record, deps.watch ?? UNWATCHED));
    return { delivered, stop: false };
  }
  try {
    await recordAttempt(deps.db, record, deps.watch ?? UNWATCHED);
    return { delivered, stop: false };
  } catch {
    return { delivered, stop: false, unrecorded: record };
  }
}

/** Where one delivery goes and what it sends: the webhook's URL and secrets, the event's exact bytes. */
export interface DeliveryTarget {
  deliveryId: string;
  mode: Mode;
  url: string;
  /** The current secret, and the previous one during a rotation's grace period. */
  secrets: string[];
  event: string;
  /** null for events about no audit (webhook.test, webhook.disabled). */
  auditId: string | null;
  payload: string;
}

/**
 * One signed POST of a delivery, re-signed with a fresh timestamp, and what the log keeps of it.
 * 2xx within the time-out acknowledges; redirects are not followed (a 3xx is non-2xx). Test-mode
 * deliveries go to the mock receiver, never to the customer's URL. Never throws: a non-2xx answer
 * or a network error is the attempt's outcome.
 */
export async function sendAttempt(
  deps: Pick<AttemptDeps, 'clock' | 'timeoutMs' | 'allow' | 'testMockUrl'>,
  target: DeliveryTarget,
  attempt: { attempt: number; trigger: 'automatic' | 'manual'; nextDelayMs: number | null },
): Promise<AttemptRecord> {
  const startedAt = deps.clock.now();
  const started = performance.now();
  const headers = deliveryHeaders({
    secrets: target.secrets,
    event: target.event,
    auditId: target.auditId,
    deliveryId: target.deliveryId,
    attempt: attempt.attempt,
    body: target.payload,
    timestampSeconds: Math.floor(startedAt.getTime() / 1000),
  });
  const { statusCode, errorClass, errorMessage, excerpt } = await postDelivery({
    url: target.mode === 'test' ? deps.testMockUrl : target.url,
    headers,
    body: target.payload,
    timeoutMs: deps.timeoutMs,
    allow: target.mode === 'test' ? ANYWHERE : deps.allow,
  });
  const durationMs = Math.round(performance.now() - started);
  const nextAttemptAt =
    errorClass !== null && attempt.nextDelayMs !== null
      ? new Date(startedAt.getTime() + durationMs + attempt.nextDelayMs).toISOString()
      : null;
  return {
    deliveryId: target.deliveryId,
    attempt: attempt.attempt,
    trigger: attempt.trigger,
    startedAt: startedAt.toISOString(),
    durationMs,
    statusCode,
    errorClass,
    errorMessage,
    excerpt,
    nextAttemptAt,
  };
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
    return { statusCode, errorClass, errorMessage: null, excerpt: responseExcerpt(response.body, response.headers) };
  } catch (err) {
    return {
      statusCode: null,
      errorClass: classifyOutboundError(err),
      errorMessage: storableText((err as Error).message.slice(0, 500)),
      excerpt: null,
    };
  }
}
