import type { EventDetails } from './planning';

/** Arguments of DeliveryWorkflow; pure types shared by the audit workflow and the API. */
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

export const REDELIVER_SIGNAL = 'redeliver';
