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
}

export const REDELIVER_SIGNAL = 'redeliver';
