import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { DeliveryControl, Redelivery } from '../src/webhooks/redelivery';
import { DeliveryWorkflow } from '../workflows';
import {
  deliverySearchAttributes,
  deliveryWorkflowId,
  redeliverSignal,
  type DeliveryWorkflowInput,
} from '../workflows/contracts';

/**
 * Manual redelivery through the same signal operators send with the Temporal CLI. A delivery
 * acknowledged at its first attempt has no workflow yet: signal-with-start gives it one, which goes
 * on from the delivery log (DeliveryWorkflowInput.resume).
 */
export class TemporalDeliveryControl implements DeliveryControl {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly settings: Pick<DeliveryWorkflowInput, 'retryDelaysMs' | 'redeliveryWindowMs' | 'timeoutMs'>,
  ) {}

  async redeliver(delivery: Redelivery): Promise<'signalled' | 'closed'> {
    try {
      await this.client.workflow.signalWithStart(DeliveryWorkflow, {
        workflowId: deliveryWorkflowId(delivery.deliveryId),
        taskQueue: this.taskQueue,
        args: [
          { deliveryId: delivery.deliveryId, eventAt: delivery.eventAt.toISOString(), ...this.settings, resume: true },
        ],
        signal: redeliverSignal,
        signalArgs: [],
        // A workflow that ran its course is not started again: its window has closed.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: deliverySearchAttributes(delivery),
      });
      return 'signalled';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'closed';
      throw err;
    }
  }
}
