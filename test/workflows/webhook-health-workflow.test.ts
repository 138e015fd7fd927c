import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { WebhookHealthActivities } from '../../activities';
import { WebhookHealthWorkflow } from '../../workflows';
import {
  webhookFailingSignal,
  webhookHealthWorkflowId,
  type WebhookHealthInput,
  type WebhookStreak,
} from '../../workflows/contracts';
import { ActivityStubs, type WorkflowActivities } from './support/activity-stubs';
import { withWorker, workflowTestEnvironment } from './support/environment';

/**
 * WebhookHealthWorkflow on a real dev server with stubbed activities: its timers follow the streak the
 * activities report (docs/architecture.md, "Webhook health"), with thresholds of a second or so.
 */
describe('WebhookHealthWorkflow', function () {
  this.timeout(60_000);

  before(async () => {
    await workflowTestEnvironment();
  });

  /** Activities over a streak the test controls, on the real clock, recording each call (with ms since the streak began). */
  function healthStubs(state: {
    failingSince: number | null;
    warned: boolean;
    disableRefusals?: number;
    /** The streak begins as the workflow first reads it (not while the worker starts). */
    startsOnFirstRead?: boolean;
  }) {
    const calls: string[] = [];
    const activities: WebhookHealthActivities = {
      webhookStreak: async (): Promise<WebhookStreak> => {
        if (state.startsOnFirstRead && !calls.includes('streak')) state.failingSince = Date.now();
        calls.push('streak');
        if (state.failingSince === null) return { failingSince: null, elapsedMs: 0, warned: false };
        return {
          failingSince: new Date(state.failingSince).toISOString(),
          elapsedMs: Date.now() - state.failingSince,
          warned: state.warned,
        };
      },
      warnWebhookFailing: async () => {
        calls.push(`warn@${Date.now() - state.failingSince!}`);
        state.warned = true;
      },
      disableWebhook: async () => {
        calls.push(`disable@${Date.now() - state.failingSince!}`);
        if (state.disableRefusals) {
          state.disableRefusals--;
          // An attempt got through at the last moment: a new streak began just now.
          state.failingSince = Date.now();
          state.warned = false;
          return null;
        }
        return { disabledAt: new Date().toISOString() };
      },
      announceWebhookDisabled: async () => {
        calls.push('announce');
        return [
          {
            deliveryId: `dlv_WFHEALTH${randomUUID().replace(/-/g, '')}`,
            eventAt: new Date().toISOString(),
            workspaceId: 'ws_1',
            mode: 'live',
          },
        ];
      },
    };
    return { calls, activities };
  }

  const input = (overrides: Partial<WebhookHealthInput> = {}): WebhookHealthInput => ({
    webhookId: `wh_WFHEALTH${randomUUID().replace(/-/g, '')}`,
    disableAfterMs: 2_000,
    warnAfterMs: 1_200,
    delivery: { retryDelaysMs: [], redeliveryWindowMs: 0, timeoutMs: 1_000 },
    ...overrides,
  });

  async function run(activities: WebhookHealthActivities, args: WebhookHealthInput, during?: () => Promise<void>) {
    const env = await workflowTestEnvironment();
    const stubs = new ActivityStubs();
    return withWorker({ ...stubs.activities, ...activities } as WorkflowActivities, async (taskQueue) => {
      const handle = await env.client.workflow.signalWithStart(WebhookHealthWorkflow, {
        workflowId: webhookHealthWorkflowId(args.webhookId),
        taskQueue,
        args: [args],
        signal: webhookFailingSignal,
        signalArgs: [],
      });
      await during?.();
      return { outcome: await handle.result(), stubs };
    });
  }

  it('warns at the warning threshold, disables at the disable threshold, and announces it with a delivery each', async () => {
    const { calls, activities } = healthStubs({ failingSince: null, warned: false, startsOnFirstRead: true });
    const { outcome, stubs } = await run(activities, input());
    assert.equal(outcome, 'disabled');
    const warnAt = Number(calls.find((c) => c.startsWith('warn@'))!.slice(5));
    const disableAt = Number(calls.find((c) => c.startsWith('disable@'))!.slice(8));
    assert.ok(warnAt >= 1_200 && warnAt < 2_000, `warned after ${warnAt} ms`);
    assert.ok(disableAt >= 2_000 && disableAt < 3_500, `disabled after ${disableAt} ms`);
    // Read, sleep; read, warn; read, sleep; read, disable.
    assert.deepEqual(
      calls.filter((c) => !c.includes('@')),
      ['streak', 'streak', 'streak', 'streak', 'announce'],
    );
    // The webhook.disabled delivery went on in a DeliveryWorkflow of its own, from the delivery log.
    assert.equal(stubs.inputsOf('deliveryProgress').length, 1);
  });

  it('ends, sending nothing, when an attempt gets through before the threshold', async () => {
    const state = { failingSince: null as number | null, warned: false, startsOnFirstRead: true };
    const { calls, activities } = healthStubs(state);
    const outcome = await run(activities, input(), async () => {
      // Once the workflow has read the streak and sleeps towards the warning, an attempt gets through.
      while (!calls.includes('streak')) await new Promise((resolve) => setTimeout(resolve, 10));
      state.failingSince = null;
    });
    assert.equal(outcome.outcome, 'recovered');
    assert.deepEqual(calls, ['streak', 'streak']);
  });

  it('reads the streak again when the disable finds it changed, and moves its deadlines to the new one', async () => {
    const { calls, activities } = healthStubs({ failingSince: Date.now() - 2_500, warned: true, disableRefusals: 1 });
    const { outcome } = await run(activities, input());
    assert.equal(outcome, 'disabled');
    const disables = calls.filter((c) => c.startsWith('disable@')).map((c) => Number(c.slice(8)));
    assert.equal(disables.length, 2);
    assert.ok(disables[1] >= 2_000, `the second streak was disabled only after its own 2 s (${disables[1]} ms)`);
    assert.equal(calls.filter((c) => c.startsWith('warn@')).length, 1, 'the new streak was warned of in turn');
  });
});
