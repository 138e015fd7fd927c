import type { Mode } from '../../src/schemas/audit';

/** Events a notification channel subscribes to (src/schemas/api-notifications.ts lists them for the API). */
export type NotificationEvent = 'site.regressed' | 'audit.failed' | 'webhook.failing' | 'webhook.disabled';

/**
 * What happened, as the workflow that notifies knows it. An audit's `audit.completed` is planned as
 * `site.regressed` when the audit regressed, and as nothing otherwise. `emissionKey` names the
 * emission, so planning it again gives the same notification ids.
 */
export type NotificationOccasion =
  | {
      event: 'audit.completed' | 'audit.failed';
      auditId: string;
      workspaceId: string;
      mode: Mode;
      emissionKey: string;
    }
  /** `at`: when the streak began (webhook.failing) or when the webhook was disabled; `disableAt` with webhook.failing. */
  | { event: 'webhook.failing' | 'webhook.disabled'; webhookId: string; at: string; disableAt?: string };

/** What a notification is about: the ids its message is built from. */
export interface NotificationSubject {
  auditId?: string;
  siteId?: string;
  webhookId?: string;
  /** webhook.failing: when the streak of failed attempts began. */
  failingSince?: string;
  /** webhook.failing: when the webhook will be disabled unless an attempt gets through. */
  disableAt?: string;
}

/** One message to one channel, as planned by the workflow that notifies. */
export interface PlannedNotification {
  notificationId: string;
  channelId: string;
  event: NotificationEvent;
  /** When the event happened (the notification log's created_at). */
  eventAt: string;
  about: NotificationSubject;
  workspaceId: string;
  mode: Mode;
}

/** How notifications are retried: the webhook delivery schedule (DELIVERY_RETRY_DELAYS_MS, DELIVERY_TIMEOUT_MS). */
export interface NotificationSettings {
  retryDelaysMs: number[];
  timeoutMs: number;
}

/** Arguments of NotificationWorkflow: the planned notification and its retry schedule. */
export type NotificationWorkflowInput = PlannedNotification & NotificationSettings;

/** What one attempt ended in, as NotificationWorkflow goes on from it. */
export interface NotificationAttemptOutcome {
  /** Nothing more to try: sent, refused for good (a 4xx other than 429), the last attempt, or the channel removed. */
  done: boolean;
  delivered: boolean;
  /** A 429's Retry-After, when longer than the next scheduled delay. */
  retryAfterMs: number | null;
}

/** A notification's workflow id is its notification id (`ntf_…`), so its log row leads to its workflow. */
export function notificationWorkflowId(notificationId: string): string {
  return notificationId;
}
