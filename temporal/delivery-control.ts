import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { deliveryWorkflowId, redeliverSignal } from '../workflows/contracts';

/** Manual redelivery through the same signal operators send with the Temporal CLI. */
export class TemporalDeliveryControl {
  constructor(private readonly client: Client) {}

  /** 'closed' when the delivery's workflow has ended (its redelivery window is over). */
  async redeliver(deliveryId: string): Promise<'signalled' | 'closed'> {
    try {
      await this.client.workflow.getHandle(deliveryWorkflowId(deliveryId)).signal(redeliverSignal);
      return 'signalled';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'closed';
      throw err;
    }
  }
}
