import { defineSignal } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { Mode } from '../../src/schemas/audit';
import { AUDIT_DOMAIN, auditSearchAttributes } from './search-attributes';

/**
 * Arguments of WebhookHealthWorkflow (one per failing webhook, docs/architecture.md "Webhook health"):
 * started or signalled when a webhook's streak of failed attempts begins; warns its owners after
 * `warnAfterMs` of nothing but failures and disables it after `disableAfterMs`.
 */
export interface WebhookHealthInput {
  webhookId: string;
  /** WEBHOOK_DISABLE_AFTER_MS. */
  disableAfterMs: number;
  /** When the owners are warned: 60 % of disableAfterMs. */
  warnAfterMs: number;
  /** The webhook.disabled deliveries to the workspace's other webhooks go as any delivery does. */
  delivery: { retryDelaysMs: number[]; redeliveryWindowMs: number; timeoutMs: number };
}

/** Where a webhook's failing streak stands, as its health workflow reads it. */
export interface WebhookStreak {
  /** When the streak began; null when there is none (an attempt got through, or the webhook is gone or disabled). */
  failingSince: string | null;
  /** How long it has lasted, on the clock that stamped the attempts. */
  elapsedMs: number;
  /** Whether the owners were warned of this streak. */
  warned: boolean;
}

/** A webhook.disabled delivery recorded for another webhook, to be sent by its own DeliveryWorkflow. */
export interface RecordedDelivery {
  deliveryId: string;
  eventAt: string;
  workspaceId: string;
  mode: Mode;
}

/** "This webhook's attempts are failing": sent (with start) by whatever records a failed attempt. */
export const webhookFailingSignal = defineSignal('webhookFailing');

/** One health workflow per webhook. */
export function webhookHealthWorkflowId(webhookId: string): string {
  return `webhook-health-${webhookId}`;
}

/** Why a webhook was disabled, in the API and the webhook.disabled event. */
export const DISABLED_FOR_FAILURES = 'consecutive_failures';

/**
 * The search attributes of a delivery's workflow: its audit's, or for an event about no audit
 * (webhook.test, webhook.disabled) the workspace and mode alone.
 */
export function deliverySearchAttributes(subject: {
  domain: string | null;
  workspaceId: string;
  mode: Mode;
}): SearchAttributePair[] {
  const pairs = auditSearchAttributes({ ...subject, domain: subject.domain ?? '' });
  return subject.domain === null ? pairs.filter((pair) => pair.key !== AUDIT_DOMAIN) : pairs;
}
