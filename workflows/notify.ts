import { ParentClosePolicy, proxyLocalActivities, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { NotificationActivities } from '../activities/notifications';
import {
  DATABASE_WRITE_RETRY,
  deliverySearchAttributes,
  notificationWorkflowId,
  type NotificationOccasion,
  type NotificationSettings,
  type PlannedNotification,
} from './contracts';
import { NotificationWorkflow } from './notification';

// Reads only (the channels that listen, whether the audit regressed): a local activity, retried
// without limit so an outage delays the notifications rather than losing them.
const planning = proxyLocalActivities<NotificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DATABASE_WRITE_RETRY,
});

/**
 * Tells the workspace's notification channels of an event: one NotificationWorkflow per channel that
 * lists it (id = notification id, derived from the occasion and the channel), abandoned so that its
 * retries outlive the workflow that started it and never affect it.
 */
export async function notifyChannels(occasion: NotificationOccasion, settings: NotificationSettings): Promise<void> {
  const planned = await planning.planNotifications(occasion);
  const schedule = { retryDelaysMs: settings.retryDelaysMs, timeoutMs: settings.timeoutMs };
  await Promise.all(planned.map((notification) => startNotification(notification, schedule)));
}

async function startNotification(notification: PlannedNotification, settings: NotificationSettings): Promise<void> {
  try {
    await startChild(NotificationWorkflow, {
      workflowId: notificationWorkflowId(notification.notificationId),
      args: [{ ...notification, ...settings }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: deliverySearchAttributes({ ...notification, domain: null }),
    });
  } catch (err) {
    // The same occasion was planned before (a webhook's health workflow reading its streak again): that one serves.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
