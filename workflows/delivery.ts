import { condition, patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { DeliveryActivities } from '../activities/delivery';
import { DELIVERY_ATTEMPT_RETRY, DELIVERY_LOG_RETRY, redeliverSignal, type DeliveryWorkflowInput } from './contracts';

const deliveryLog = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DELIVERY_LOG_RETRY,
});

/** Deliveries that write their own log row (before, the planning step wrote it). */
const RECORDS_OWN_ROW = 'delivery-records-own-row';
/** Deliveries whose first attempt runs as a local activity, in the workflow's first task. */
const FIRST_ATTEMPT_LOCAL = 'delivery-first-attempt-local';

/**
 * One webhook delivery (id = delivery id): record it in the delivery log, attempt at once, retry
 * after each configured delay, then mark it failed; afterwards keep accepting `redeliver` signals
 * until the redelivery window of the original event closes. It never fails: infrastructure errors
 * are retried until they pass. A delivery's outcome never touches its audit.
 */
export async function DeliveryWorkflow(
  input: DeliveryWorkflowInput,
): Promise<{ delivered: boolean; attempts: number }> {
  const post = proxyActivities<DeliveryActivities>({
    // The POST is bounded by timeoutMs; the rest is storing its outcome, which waits out a database
    // outage (heartbeating) instead of failing and sending the delivery again.
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: input.timeoutMs + 10_000,
    // A non-2xx answer is an outcome, not an error: what fails the activity is a lost worker or an
    // unreachable database before the POST, retried without limit.
    retry: DELIVERY_ATTEMPT_RETRY,
  });
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
  let manualRequests = 0;
  setHandler(redeliverSignal, () => void manualRequests++);
  let attempts = 0;
  let delivered = false;

  const attempt = async (
    trigger: 'automatic' | 'manual',
    nextDelayMs: number | null,
    local = false,
  ): Promise<boolean> => {
    attempts++;
    const request = { deliveryId: input.deliveryId, attempt: attempts, trigger, nextDelayMs };
    // A local first attempt that failed before its POST is the same attempt again as an activity,
    // which waits out an outage. One whose POST went out but could not be stored hands the outcome
    // back: an activity stores it, and nothing is sent twice.
    const first = local ? await firstAttempt(input.timeoutMs, request).catch(() => null) : null;
    if (first?.unrecorded) await post.recordDeliveryAttempt(first.unrecorded);
    const outcome = first ?? (await post.attemptDelivery(request));
    delivered ||= outcome.delivered;
    return outcome.stop;
  };

  // The automatic schedule: a redeliver signal during a back-off attempts at once.
  for (let i = 0; i <= input.retryDelaysMs.length && !delivered; i++) {
    let trigger: 'automatic' | 'manual' = 'automatic';
    if (i > 0) {
      const signalled = await condition(() => manualRequests > 0, input.retryDelaysMs[i - 1]);
      if (signalled) {
        manualRequests = 0;
        trigger = 'manual';
      }
    }
    const nextDelayMs = i < input.retryDelaysMs.length ? input.retryDelaysMs[i] : null;
    // The first attempt without a round trip through the server: no activity task to schedule and
    // dispatch, and no second workflow task before the POST.
    const local = i === 0 && patched(FIRST_ATTEMPT_LOCAL);
    if (await attempt(trigger, nextDelayMs, local)) return { delivered, attempts };
  }
  if (!delivered) await deliveryLog.markDeliveryFailed({ deliveryId: input.deliveryId });

  // The manual window: until eventAt + window, each signal is one more attempt.
  const windowEnd = Date.parse(input.eventAt) + input.redeliveryWindowMs;
  for (;;) {
    const remaining = windowEnd - Date.now();
    if (remaining <= 0 || !(await condition(() => manualRequests > 0, remaining))) break;
    manualRequests = 0;
    if (await attempt('manual', null)) break;
  }
  return { delivered, attempts };
}

/** The first attempt as a local activity: tried once, bounded by the POST's time-out. */
function firstAttempt(
  timeoutMs: number,
  request: Parameters<DeliveryActivities['attemptDeliveryOnce']>[0],
): ReturnType<DeliveryActivities['attemptDeliveryOnce']> {
  const once = proxyLocalActivities<DeliveryActivities>({
    startToCloseTimeout: timeoutMs + 10_000,
    retry: { maximumAttempts: 1 },
  });
  return once.attemptDeliveryOnce(request);
}
