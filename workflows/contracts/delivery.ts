import { defineSignal } from '@temporalio/workflow';
import type { AuditFailureCode } from './audit-failures';

/** The webhook event an audit emits, as the audit workflow hands it to planning and to each delivery. */
export type EventDetails =
  | { event: 'audit.completed' }
  | { event: 'audit.failed' }
  | {
      event: 'audit.retried';
      attempt: number;
      maxRetries: number;
      nextAttemptAt: string;
      error: { code: AuditFailureCode; message: string };
    }
  /** Planned beside audit.completed when the audit of a monitored site regressed (opt-in event). */
  | { event: 'site.regressed'; siteId: string };

/**
 * Arguments of DeliveryWorkflow. AuditWorkflow starts one for each delivery whose first attempt (made
 * by the audit workflow itself) was not acknowledged: `record` and `firstAttempt`. A manual
 * redelivery of a delivery that has no workflow starts one with `resume`. Workflows started by
 * earlier versions have `record` alone (they make the first attempt), or nothing (planning logged them).
 */
export interface DeliveryWorkflowInput {
  deliveryId: string;
  /** Delays before each automatic retry (DELIVERY_RETRY_DELAYS_MS). */
  retryDelaysMs: number[];
  /** When the event happened: manual redelivery is possible until eventAt + redeliveryWindowMs. */
  eventAt: string;
  redeliveryWindowMs: number;
  /** Per-attempt time-out (DELIVERY_TIMEOUT_MS), to bound the activity. */
  timeoutMs: number;
  /**
   * What the workflow's first step writes to the delivery log. Absent for deliveries planned by
   * earlier versions, whose planning step wrote the row itself, and with `resume`.
   */
  record?: DeliveryRecord;
  /** Attempt 1, made and not acknowledged: logged with the row, then the automatic schedule goes on from it. */
  firstAttempt?: AttemptRecord;
  /** The delivery is logged already: go on from where the log says it stands (DeliveryProgress). */
  resume?: boolean;
}

/** What one attempt did, as stored in the delivery log (plain data: it may cross an activity boundary). */
export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  trigger: 'automatic' | 'manual';
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  errorClass: string | null;
  errorMessage: string | null;
  excerpt: string | null;
  nextAttemptAt: string | null;
}

/** One delivery of an event, as planned by the workflow that emits the event. */
export interface PlannedDelivery {
  deliveryId: string;
  /** When the event happened (the delivery log's created_at). */
  createdAt: string;
  webhookId: string;
  /** Where it goes: the webhook's URL, or the trigger's webhook_url override. */
  url: string;
  /** Another event than the one planned for (site.regressed, planned with audit.completed). */
  details?: EventDetails;
}

/** A delivery's first attempt, made by the workflow that emits the event: the delivery and how its POST went. */
export interface FirstAttempt {
  delivery: PlannedDelivery;
  attempt: AttemptRecord;
}

/** Where a logged delivery stands, as a DeliveryWorkflow goes on from it. */
export interface DeliveryProgress {
  attempts: number;
  delivered: boolean;
  /** When the automatic schedule's next attempt is due; null once it is over (delivered or every retry made). */
  nextAttemptAt: string | null;
}

export interface DeliveryRecord {
  auditId: string;
  webhookId: string;
  url: string;
  details: EventDetails;
}

/**
 * Manual redelivery of a DeliveryWorkflow: sent by the API and the dashboard, and by operators
 * with `temporal workflow signal --name redeliver`.
 */
export const redeliverSignal = defineSignal('redeliver');

/** A delivery's workflow id is its delivery id (`dlv_…`), so the delivery log leads to its workflow. */
export function deliveryWorkflowId(deliveryId: string): string {
  return deliveryId;
}
