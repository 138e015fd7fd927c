import {
  continueAsNew,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { WebhookHealthActivities } from '../activities/delivery';
import {
  DELIVERY_ATTEMPT_RETRY,
  deliverySearchAttributes,
  deliveryWorkflowId,
  webhookFailingSignal,
  type RecordedDelivery,
  type WebhookHealthInput,
} from './contracts';
import { DeliveryWorkflow } from './delivery';
import { notifyChannels } from './notify';

// Database reads and writes, and e-mail: retried without limit, so a notice is never lost to an outage.
const health = proxyActivities<WebhookHealthActivities>({
  startToCloseTimeout: '2 minutes',
  retry: DELIVERY_ATTEMPT_RETRY,
});

/** Health workflows that tell the workspace's notification channels of webhook.failing and webhook.disabled. */
const NOTIFIES_CHANNELS = 'health-notifies-channels';

/** Checks of the streak per run before the history is carried over (continue-as-new): a flapping endpoint keeps it alive. */
const ROUNDS_PER_RUN = 200;

export type WebhookHealthOutcome = 'recovered' | 'disabled' | 'continued';

/**
 * The health of one webhook (id `webhook-health-<webhook_id>`), alive while it is failing. Started,
 * or signalled, by whatever records the first failed attempt of a streak; every other failed attempt
 * costs it nothing. It sleeps on a Temporal timer until the streak is due for the owners' warning
 * (60 % of WEBHOOK_DISABLE_AFTER_MS) and then for disabling, reading the streak afresh each time it
 * wakes: an acknowledged attempt meanwhile ends it ('recovered'), a new streak moves the deadlines.
 * Disabled, the webhook's owners are e-mailed and the workspace's other webhooks that list
 * webhook.disabled get a delivery each. The warning and the disable also reach the workspace's
 * notification channels that list webhook.failing or webhook.disabled (workflows/notify.ts). Why a
 * workflow of its own: docs/architecture.md, "Webhook health".
 */
export async function WebhookHealthWorkflow(input: WebhookHealthInput): Promise<WebhookHealthOutcome> {
  let reports = 0;
  setHandler(webhookFailingSignal, () => void reports++);
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    const reportsBefore = reports;
    const streak = await health.webhookStreak({ webhookId: input.webhookId });
    if (streak.failingSince === null) {
      // A streak reported while this one was read (its failure is stored before it is reported): read again.
      if (reports !== reportsBefore) continue;
      return 'recovered';
    }
    if (streak.elapsedMs >= input.disableAfterMs) {
      const disabled = await health.disableWebhook({ webhookId: input.webhookId, failingSince: streak.failingSince });
      // An attempt got through at the last moment: read the streak again.
      if (!disabled) continue;
      const announced = await health.announceWebhookDisabled({ webhookId: input.webhookId, ...disabled });
      await Promise.all(announced.map((delivery) => startDelivery(input, delivery)));
      if (patched(NOTIFIES_CHANNELS))
        await notifyChannels(
          { event: 'webhook.disabled', webhookId: input.webhookId, at: disabled.disabledAt },
          input.delivery,
        );
      return 'disabled';
    }
    if (streak.elapsedMs >= input.warnAfterMs && !streak.warned) {
      await health.warnWebhookFailing({
        webhookId: input.webhookId,
        failingSince: streak.failingSince,
        disableAfterMs: input.disableAfterMs,
      });
      if (patched(NOTIFIES_CHANNELS)) await notifyFailing(input, streak.failingSince);
      continue;
    }
    const dueAfterMs = (streak.warned ? input.disableAfterMs : input.warnAfterMs) - streak.elapsedMs;
    await sleep(Math.max(1, dueAfterMs));
  }
  return continueAsNew<typeof WebhookHealthWorkflow>(input);
}

/** A webhook.disabled delivery, as any delivery that is not acknowledged at once: its own workflow, from the log. */
async function startDelivery(input: WebhookHealthInput, delivery: RecordedDelivery): Promise<void> {
  try {
    await startChild(DeliveryWorkflow, {
      workflowId: deliveryWorkflowId(delivery.deliveryId),
      args: [{ deliveryId: delivery.deliveryId, eventAt: delivery.eventAt, ...input.delivery, resume: true }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: deliverySearchAttributes({ ...delivery, domain: null }),
    });
  } catch (err) {
    // This step ran before (the workflow task was retried after the start): that workflow serves.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** webhook.failing, once per streak (the notification ids derive from the webhook and when its streak began). */
async function notifyFailing(input: WebhookHealthInput, failingSince: string): Promise<void> {
  const disableAt = new Date(Date.parse(failingSince) + input.disableAfterMs).toISOString();
  await notifyChannels(
    { event: 'webhook.failing', webhookId: input.webhookId, at: failingSince, disableAt },
    input.delivery,
  );
}
