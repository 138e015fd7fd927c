import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { DeliveryWorkflow } from '../../workflows';
import { redeliverSignal, type DeliveryWorkflowInput } from '../../workflows/contracts';
import { ActivityStubs, type ActivityName } from './support/activity-stubs';
import { withWorker, workflowTestEnvironment } from './support/environment';

/**
 * DeliveryWorkflow on a real dev server with stubbed activities: the automatic schedule after a first
 * attempt made by the audit workflow, manual redelivery during the back-off and after it, until the
 * redelivery window closes. Delays and the window are inputs (DELIVERY_RETRY_DELAYS_MS,
 * REDELIVERY_WINDOW_MS), short here: this server cannot skip time.
 */
describe('DeliveryWorkflow', function () {
  this.timeout(60_000);

  before(async () => {
    await workflowTestEnvironment();
  });

  it('logs the first attempt it is given, then retries on schedule from attempt 2 and marks the delivery failed', async () => {
    const stubs = new ActivityStubs({ attemptDelivery: async () => ({ delivered: false, stop: false }) });
    const input = continuedInput({ retryDelaysMs: [50, 50], redeliveryWindowMs: 0 });
    const env = await workflowTestEnvironment();

    const result = await withWorker(stubs.activities, async (taskQueue) =>
      env.client.workflow.execute(DeliveryWorkflow, { workflowId: input.deliveryId, taskQueue, args: [input] }),
    );

    assert.deepEqual(result, { delivered: false, attempts: 3 });
    assert.deepEqual(
      stubs
        .inputsOf('recordFirstAttempts')
        .map((call) => [
          call.auditId,
          call.details.event,
          call.attempts.map((a) => [
            a.delivery.deliveryId,
            a.delivery.webhookId,
            a.attempt.attempt,
            a.attempt.errorClass,
          ]),
        ]),
      [['aud_WFTEST', 'audit.completed', [[input.deliveryId, 'wh_workflow_tests', 1, 'non_2xx']]]],
    );
    assert.deepEqual(
      stubs.attempts().map((call) => [call.attempt, call.trigger, call.nextDelayMs, call.local]),
      [
        [2, 'automatic', 50, false],
        [3, 'automatic', null, false],
      ],
    );
    assert.deepEqual(stubs.inputsOf('markDeliveryFailed'), [{ deliveryId: input.deliveryId }]);
    assert.equal(stubs.inputsOf('recordDelivery').length, 0, 'the row is logged with its attempt');
  });

  it('attempts at once, as a manual attempt, when redeliver is signalled while attempt 2 is due later', async () => {
    const stubs = new ActivityStubs();
    // The first retry is ten minutes away: the test times out long before it would come by itself.
    const input = continuedInput({ retryDelaysMs: [600_000], redeliveryWindowMs: 0 });

    const result = await redeliverOnceWaiting(stubs, input, 'recordFirstAttempts');

    assert.deepEqual(result, { delivered: true, attempts: 2 });
    assert.deepEqual(
      stubs.attempts().map((call) => [call.attempt, call.trigger, call.nextDelayMs]),
      [[2, 'manual', null]],
    );
    assert.equal(stubs.inputsOf('markDeliveryFailed').length, 0);
  });

  it('started by a redelivery of a delivery acknowledged at once: one manual attempt, numbered after the logged ones', async () => {
    const stubs = new ActivityStubs({
      deliveryProgress: async () => ({ attempts: 1, delivered: true, nextAttemptAt: null }),
    });
    const env = await workflowTestEnvironment();
    let input: DeliveryWorkflowInput | undefined;

    const result = await withWorker(stubs.activities, async (taskQueue) => {
      // The window counts from eventAt: stamped once the worker is up, so a slow start (a loaded
      // machine bundling the workflows) does not close it before the signal.
      input = { ...deliveryInput({ redeliveryWindowMs: 5_000 }), record: undefined, resume: true };
      const handle = await env.client.workflow.signalWithStart(DeliveryWorkflow, {
        workflowId: input.deliveryId,
        taskQueue,
        args: [input],
        signal: redeliverSignal,
        signalArgs: [],
      });
      return handle.result();
    });

    assert.deepEqual(result, { delivered: true, attempts: 2 });
    assert.deepEqual(stubs.inputsOf('deliveryProgress'), [{ deliveryId: input!.deliveryId }]);
    assert.deepEqual(
      stubs.attempts().map((call) => [call.attempt, call.trigger, call.nextDelayMs]),
      [[2, 'manual', null]],
    );
    assert.equal(stubs.inputsOf('markDeliveryFailed').length, 0);
  });

  it('ends at once when the delivery is gone from the log (its workspace was deleted)', async () => {
    const stubs = new ActivityStubs({ recordFirstAttempts: async () => false });
    const input = continuedInput({ retryDelaysMs: [50], redeliveryWindowMs: 60_000 });
    const env = await workflowTestEnvironment();

    const result = await withWorker(stubs.activities, async (taskQueue) =>
      env.client.workflow.execute(DeliveryWorkflow, { workflowId: input.deliveryId, taskQueue, args: [input] }),
    );

    assert.deepEqual(result, { delivered: false, attempts: 1 });
    assert.deepEqual(stubs.attempts(), []);
  });
});

/** Workflows started before the audit workflow made first attempts: each makes its own attempt 1. */
describe('DeliveryWorkflow started by an earlier version (it makes attempt 1 itself)', function () {
  this.timeout(60_000);

  before(async () => {
    await workflowTestEnvironment();
  });

  it('attempts at once, as a manual attempt, when redeliver is signalled during a back-off', async () => {
    let attempts = 0;
    const stubs = new ActivityStubs({ attemptDelivery: async () => ({ delivered: ++attempts > 1, stop: false }) });
    // A back-off of ten minutes: the test times out long before it would end by itself.
    const input = deliveryInput({ retryDelaysMs: [600_000, 600_000], redeliveryWindowMs: 0 });

    const result = await redeliverOnceWaiting(stubs, input, 'attemptDeliveryOnce');

    assert.deepEqual(result, { delivered: true, attempts: 2 });
    assert.deepEqual(
      stubs.attempts().map((call) => [call.attempt, call.trigger, call.nextDelayMs, call.local]),
      [
        [1, 'automatic', 600_000, true],
        [2, 'manual', 600_000, false],
      ],
    );
    assert.deepEqual(
      stubs.inputsOf('recordDelivery').map((call) => call.deliveryId),
      [input.deliveryId],
    );
    assert.equal(stubs.inputsOf('markDeliveryFailed').length, 0);
  });

  it('accepts redeliver until the window closes, then completes; a later signal fails cleanly', async () => {
    const stubs = new ActivityStubs({ attemptDelivery: async () => ({ delivered: false, stop: false }) });
    // Generous for one signal after the automatic attempts, short enough to wait out.
    const input = deliveryInput({ retryDelaysMs: [50], redeliveryWindowMs: 5_000 });
    const env = await workflowTestEnvironment();

    const result = await withWorker(stubs.activities, async (taskQueue) => {
      const handle = await env.client.workflow.start(DeliveryWorkflow, {
        workflowId: input.deliveryId,
        taskQueue,
        args: [input],
      });
      await stubs.waitForCalls('markDeliveryFailed', 1);
      await handle.signal(redeliverSignal);
      const result = await handle.result();
      await assert.rejects(handle.signal(redeliverSignal), WorkflowNotFoundError);
      return result;
    });

    assert.deepEqual(result, { delivered: false, attempts: 3 });
    assert.deepEqual(
      stubs.attempts().map((call) => [call.attempt, call.trigger, call.nextDelayMs, call.local]),
      [
        [1, 'automatic', 50, true],
        [2, 'automatic', null, false],
        [3, 'manual', null, false],
      ],
    );
    assert.deepEqual(stubs.inputsOf('markDeliveryFailed'), [{ deliveryId: input.deliveryId }]);
  });

  it('makes the first attempt in its first workflow task, without an activity task', async () => {
    const stubs = new ActivityStubs();
    const input = deliveryInput({ retryDelaysMs: [600_000] });
    const env = await workflowTestEnvironment();

    const { result, history } = await withWorker(stubs.activities, async (taskQueue) => {
      const handle = await env.client.workflow.start(DeliveryWorkflow, {
        workflowId: input.deliveryId,
        taskQueue,
        args: [input],
      });
      return { result: await handle.result(), history: await handle.fetchHistory() };
    });

    assert.deepEqual(result, { delivered: true, attempts: 1 });
    assert.deepEqual(
      stubs.attempts().map((call) => [call.attempt, call.trigger, call.local]),
      [[1, 'automatic', true]],
    );
    const events = history.events ?? [];
    assert.equal(events.filter((e) => e.activityTaskScheduledEventAttributes).length, 0, 'no activity task');
    assert.equal(events.filter((e) => e.workflowTaskCompletedEventAttributes).length, 1, 'one workflow task');
  });

  it('makes the first attempt again as an activity when the local one could not finish', async () => {
    const stubs = new ActivityStubs({
      attemptDeliveryOnce: async () => {
        throw new Error('connection terminated unexpectedly');
      },
    });
    const input = deliveryInput({ retryDelaysMs: [600_000] });
    const env = await workflowTestEnvironment();

    const result = await withWorker(stubs.activities, async (taskQueue) =>
      env.client.workflow.execute(DeliveryWorkflow, { workflowId: input.deliveryId, taskQueue, args: [input] }),
    );

    assert.deepEqual(result, { delivered: true, attempts: 1 });
    assert.deepEqual(
      stubs.attempts().map((call) => [call.attempt, call.trigger, call.nextDelayMs, call.local]),
      [
        [1, 'automatic', 600_000, true],
        [1, 'automatic', 600_000, false],
      ],
    );
  });

  it('stores, and never resends, a local first attempt whose POST went out but could not be stored', async () => {
    const unrecorded = {
      deliveryId: 'dlv_x',
      attempt: 1,
      trigger: 'automatic' as const,
      startedAt: new Date().toISOString(),
      durationMs: 12,
      statusCode: 200,
      errorClass: null,
      errorMessage: null,
      excerpt: 'ok',
      nextAttemptAt: null,
    };
    const stubs = new ActivityStubs({
      attemptDeliveryOnce: async () => ({ delivered: true, stop: false, unrecorded }),
    });
    const input = deliveryInput({ retryDelaysMs: [600_000] });
    const env = await workflowTestEnvironment();

    const result = await withWorker(stubs.activities, async (taskQueue) =>
      env.client.workflow.execute(DeliveryWorkflow, { workflowId: input.deliveryId, taskQueue, args: [input] }),
    );

    assert.deepEqual(result, { delivered: true, attempts: 1 });
    assert.deepEqual(
      stubs.attempts().map((call) => call.local),
      [true],
      'one POST: the local attempt',
    );
    assert.deepEqual(stubs.inputsOf('recordDeliveryAttempt'), [unrecorded]);
  });
});

/** Runs a delivery and signals `redeliver` once `step` has been called: it is then waiting for its next attempt. */
async function redeliverOnceWaiting(stubs: ActivityStubs, input: DeliveryWorkflowInput, step: ActivityName) {
  const env = await workflowTestEnvironment();
  return withWorker(stubs.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(DeliveryWorkflow, {
      workflowId: input.deliveryId,
      taskQueue,
      args: [input],
    });
    await stubs.waitForCalls(step, 1);
    await handle.signal(redeliverSignal);
    return handle.result();
  });
}

/** What the audit workflow starts for a delivery whose first attempt the receiver answered 500. */
function continuedInput(overrides: Partial<DeliveryWorkflowInput>): DeliveryWorkflowInput {
  const input = deliveryInput(overrides);
  const startedAt = new Date();
  const nextDelayMs = input.retryDelaysMs[0];
  return {
    ...input,
    firstAttempt: {
      deliveryId: input.deliveryId,
      attempt: 1,
      trigger: 'automatic',
      startedAt: startedAt.toISOString(),
      durationMs: 4,
      statusCode: 500,
      errorClass: 'non_2xx',
      errorMessage: null,
      excerpt: 'no',
      nextAttemptAt: nextDelayMs === undefined ? null : new Date(startedAt.getTime() + nextDelayMs).toISOString(),
    },
  };
}

function deliveryInput(overrides: Partial<DeliveryWorkflowInput>): DeliveryWorkflowInput {
  const deliveryId = `dlv_WFTEST_${randomUUID()}`;
  return {
    deliveryId,
    retryDelaysMs: [],
    eventAt: new Date().toISOString(),
    redeliveryWindowMs: 0,
    timeoutMs: 1_000,
    record: {
      auditId: 'aud_WFTEST',
      webhookId: 'wh_workflow_tests',
      url: 'http://127.0.0.1:9/hook',
      details: { event: 'audit.completed' },
    },
    ...overrides,
  };
}
