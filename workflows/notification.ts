import { proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications';
import { DELIVERY_ATTEMPT_RETRY, DELIVERY_LOG_RETRY, type NotificationWorkflowInput } from './contracts';

const notificationLog = proxyLocalActivities<NotificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DELIVERY_LOG_RETRY,
});

export interface NotificationResult {
  delivered: boolean;
  attempts: number;
}

/**
 * One message to one notification channel (id = notification id; docs/architecture.md,
 * "Notifications"). Its first step logs it with the message built once; then attempt after attempt
 * on the webhook delivery schedule (a 429's Retry-After when that is longer) until it is sent, refused
 * for good (a 4xx other than 429), the schedule runs out or the channel is removed. Each attempt is
 * an activity that never fails for the target's answer: only a lost worker or database fails it, and
 * that is retried without limit. Abandoned by the workflow that started it, it never touches its event.
 */
export async function NotificationWorkflow(input: NotificationWorkflowInput): Promise<NotificationResult> {
  const { retryDelaysMs, timeoutMs, ...planned } = input;
  // Gone with its channel, audit or webhook: nothing to send.
  if (!(await notificationLog.recordNotification(planned))) return { delivered: false, attempts: 0 };
  const send = proxyActivities<NotificationActivities>({
    // The POST is bounded by timeoutMs (an e-mail by a minute more); storing its outcome waits out a
    // database outage (heartbeating) instead of failing and sending the message again.
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: timeoutMs + 60_000,
    retry: DELIVERY_ATTEMPT_RETRY,
  });
  for (let attempt = 1; ; attempt++) {
    const last = attempt > retryDelaysMs.length;
    const outcome = await send.attemptNotification({ notificationId: input.notificationId, attempt, last });
    if (outcome.done || last) return { delivered: outcome.delivered, attempts: attempt };
    await sleep(Math.max(retryDelaysMs[attempt - 1], outcome.retryAfterMs ?? 0));
  }
}
