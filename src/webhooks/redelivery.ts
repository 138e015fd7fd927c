import type { Mode } from '../schemas/audit';
import type { DeliveryRow } from './repository';

/** A logged delivery to send again by hand, and what its workflow is found by. */
export interface Redelivery {
  deliveryId: string;
  /** When its event happened: the redelivery window runs from here. */
  eventAt: Date;
  /** The audit's domain; null for events about no audit (webhook.test, webhook.disabled). */
  domain: string | null;
  workspaceId: string;
  mode: Mode;
}

/** Manual redelivery, as the API and the dashboard ask for it (temporal/delivery-control.ts sends it). */
export interface DeliveryControl {
  /** 'closed' when the delivery's workflow has ended (its redelivery window is over). */
  redeliver(delivery: Redelivery): Promise<'signalled' | 'closed'>;
}

export function redeliveryOf(delivery: DeliveryRow & { audit_domain: string | null }): Redelivery {
  return {
    deliveryId: delivery.id,
    eventAt: new Date(delivery.created_at),
    domain: delivery.audit_domain,
    workspaceId: delivery.workspace_id,
    mode: delivery.mode,
  };
}
