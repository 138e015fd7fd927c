import {
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { DeliveryActivities } from '../activities/delivery';
import {
  DELIVERY_ATTEMPT_RETRY,
  DELIVERY_LOG_RETRY,
  redeliverSignal,
  type DeliveryProgress,
  type DeliveryWorkflowInput,
} from './contracts';

const deliveryLog = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DELIVERY_LOG_RETRY,
});

/** Deliveries that write their own log row (before, the planning step wrote it). */
const RECORDS_OWN_ROW = 'delivery-records-own-row';
/** Deliveries whose first attempt runs as a local activity, in the workflow's first task. */
const FIRST_ATTEMPT_LOCAL = 'delivery-first-attempt-local';

type Result = { delivered: boolean; attempts: number };

/** What a delivery's run knows: the manual requests not yet served, its attempts, whether one was acknowledged. */
interface Run {
  input: DeliveryWorkflowInput;
  post: ActivityInterfaceFor<DeliveryActivities>;
  manualRequests: number;
  attempts: number;
  delivered: boolean;
}

/**
 * One webhook delivery (id = delivery id) after its first attempt: retry after each configured
 * delay, then mark it failed; afterwards keep accepting `redeliver` signals until the redelivery
 * window of the original event closes. The emitting workflow makes attempt 1 and starts this for a
 * delivery it did not get acknowledged; a manual redelivery starts it for one that was. It never
 * fails: infrastructure errors are retried until they pass. A delivery's outcome never touches its audit.
 */
export async function DeliveryWorkflow(input: DeliveryWorkflowInput): Promise<Result> {
  const run: Run = { input, post: attemptActivities(input), manualRequests: 0, attempts: 0, delivered: false };
  setHandler(redeliverSignal, () => void run.manualRequests++);
  if (!input.firstAttempt && !input.resume) return deliverFromTheStart(run);
  const progress = input.firstAttempt
    ? await logFirstAttempt(input)
    : await deliveryLog.deliveryProgress({ deliveryId: input.deliveryId });
  // Gone with its audit or workspace: nothing left to deliver.
  if (!progress) return { delivered: false, attempts: input.firstAttempt ? 1 : 0 };
  run.attempts = progress.attempts;
  run.delivered = progress.delivered;
  // The automatic schedule from where the log stands; a redeliver signal during a back-off attempts at once.
  for (let dueAt = progress.nextAttemptAt; dueAt !== null && !run.delivered;) {
    const signalled = await condition(() => run.manualRequests > 0, Math.max(1, Date.parse(dueAt) - Date.now()));
    if (signalled) run.manualRequests = 0;
    // Attempt n is followed by the n-th delay, if there is one.
    const nextDelayMs = input.retryDelaysMs[run.attempts] ?? null;
    if (await attempt(run, signalled ? 'manual' : 'automatic', nextDelayMs)) return result(run);
    dueAt = nextDelayMs === null ? null : new Date(Date.now() + nextDelayMs).toISOString();
  }
  if (!run.delivered) await deliveryLog.markDeliveryFailed({ deliveryId: input.deliveryId });
  await manualWindow(run);
  return result(run);
}

/** Attempt 1, made by the emitting workflow and not acknowledged, logged with the delivery's row. */
async function logFirstAttempt(input: DeliveryWorkflowInput): Promise<DeliveryProgress | null> {
  const { firstAttempt, record } = input;
  if (!firstAttempt || !record) throw new Error('a first attempt comes with its record');
  const logged = await deliveryLog.recordFirstAttempts({
    auditId: record.auditId,
    details: record.details,
    attempts: [
      {
        delivery: {
          deliveryId: input.deliveryId,
          createdAt: input.eventAt,
          webhookId: record.webhookId,
          url: record.url,
        },
        attempt: firstAttempt,
      },
    ],
  });
  return logged ? { attempts: 1, delivered: false, nextAttemptAt: firstAttempt.nextAttemptAt } : null;
}

/**
 * Deliveries started by earlier versions, which make attempt 1 themselves: record the delivery log's
 * row, attempt at once, then the same schedule and window. Kept command for command while such
 * workflows may still run (docs/operations.md, "Upgrades").
 */
async function deliverFromTheStart(run: Run): Promise<Result> {
  const { input } = run;
  // The log row is the workflow's own first step: a parent run that ends before this workflow
  // starts leaves no `pending` row without a workflow behind it.
  if (patched(RECORDS_OWN_ROW) && input.record) {
    const recorded = await deliveryLog.recordDelivery({
      deliveryId: input.deliveryId,
      eventAt: input.eventAt,
      ...input.record,
    });
    if (!recorded) return { delivered: false, attempts: 0 };
  }
  for (let i = 0; i <= input.retryDelaysMs.length && !run.delivered; i++) {
    let trigger: 'automatic' | 'manual' = 'automatic';
    if (i > 0) {
      const signalled = await condition(() => run.manualRequests > 0, input.retryDelaysMs[i - 1]);
      if (signalled) {
        run.manualRequests = 0;
        trigger = 'manual';
      }
    }
    const nextDelayMs = i < input.retryDelaysMs.length ? input.retryDelaysMs[i] : null;
    // The first attempt without a round trip through the server: no activity task to schedule and
    // dispatch, and no second workflow task before the POST.
    const local = i === 0 && patched(FIRST_ATTEMPT_LOCAL);
    if (await attempt(run, trigger, nextDelayMs, local)) return result(run);
  }
  if (!run.delivered) await deliveryLog.markDeliveryFailed({ deliveryId: input.deliveryId });
  await manualWindow(run);
  return result(run);
}

/** The manual window: until eventAt + window, each signal is one more attempt. */
async function manualWindow(run: Run): Promise<void> {
  const windowEnd = Date.parse(run.input.eventAt) + run.input.redeliveryWindowMs;
  for (;;) {
    const remaining = windowEnd - Date.now();
    if (remaining <= 0 || !(await condition(() => run.manualRequests > 0, remaining))) break;
    run.manualRequests = 0;
    if (await attempt(run, 'manual', null)) break;
  }
}

/** One attempt; true when there is nothing more to try (the webhook was removed). */
async function attempt(
  run: Run,
  trigger: 'automatic' | 'manual',
  nextDelayMs: number | null,
  local = false,
): Promise<boolean> {
  run.attempts++;
  const request = { deliveryId: run.input.deliveryId, attempt: run.attempts, trigger, nextDelayMs };
  // A local first attempt that failed before its POST is the same attempt again as an activity,
  // which waits out an outage. One whose POST went out but could not be stored hands the outcome
  // back: an activity stores it, and nothing is sent twice.
  const first = local ? await firstAttemptHere(run.input.timeoutMs, request).catch(() => null) : null;
  if (first?.unrecorded) await run.post.recordDeliveryAttempt(first.unrecorded);
  const outcome = first ?? (await run.post.attemptDelivery(request));
  run.delivered ||= outcome.delivered;
  return outcome.stop;
}

function result(run: Run): Result {
  return { delivered: run.delivered, attempts: run.attempts };
}

function attemptActivities(input: DeliveryWorkflowInput): ActivityInterfaceFor<DeliveryActivities> {
  return proxyActivities<DeliveryActivities>({
    // The POST is bounded by timeoutMs; the rest is storing its outcome, which waits out a database
    // outage (heartbeating) instead of failing and sending the delivery again.
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: input.timeoutMs + 10_000,
    // A non-2xx answer is an outcome, not an error: what fails the activity is a lost worker or an
    // unreachable database before the POST, retried without limit.
    retry: DELIVERY_ATTEMPT_RETRY,
  });
}

/** The first attempt as a local activity (earlier versions): tried once, bounded by the POST's time-out. */
function firstAttemptHere(
  timeoutMs: number,
  request: Parameters<DeliveryActivities['attemptDeliveryOnce']>[0],
): ReturnType<DeliveryActivities['attemptDeliveryOnce']> {
  const once = proxyLocalActivities<DeliveryActivities>({
    startToCloseTimeout: timeoutMs + 10_000,
    retry: { maximumAttempts: 1 },
  });
  return once.attemptDeliveryOnce(request);
}
