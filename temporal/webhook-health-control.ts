import type { Client } from '@temporalio/client';
import type { FailureWatch } from '../src/webhooks/failing-streak';
import { WebhookHealthWorkflow } from '../workflows';
import { webhookFailingSignal, webhookHealthWorkflowId, type WebhookHealthInput } from '../workflows/contracts';

/** The share of WEBHOOK_DISABLE_AFTER_MS after which the owners are warned (3 of the default 5 days). */
export const WARN_SHARE = 0.6;

/**
 * Reports a webhook's new failing streak to its WebhookHealthWorkflow: signal-with-start, so a
 * running one hears of it (and cannot end unaware of it) and a webhook without one gets one. With
 * WEBHOOK_DISABLE_AFTER_MS=0 auto-disable is off and nothing is started.
 */
export class TemporalWebhookWatch implements FailureWatch {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly settings: { disableAfterMs: number; delivery: WebhookHealthInput['delivery'] },
  ) {}

  async watch(webhookId: string): Promise<void> {
    if (this.settings.disableAfterMs <= 0) return;
    await this.client.workflow.signalWithStart(WebhookHealthWorkflow, {
      workflowId: webhookHealthWorkflowId(webhookId),
      taskQueue: this.taskQueue,
      args: [
        {
          webhookId,
          disableAfterMs: this.settings.disableAfterMs,
          warnAfterMs: Math.round(this.settings.disableAfterMs * WARN_SHARE),
          delivery: this.settings.delivery,
        },
      ],
      signal: webhookFailingSignal,
      signalArgs: [],
    });
  }
}
