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

/** Arguments of DeliveryWorkflow, started by AuditWorkflow for each planned delivery. */
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
   * earlier versions, whose planning step wrote the row itself.
   */
  record?: DeliveryRecord;
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
