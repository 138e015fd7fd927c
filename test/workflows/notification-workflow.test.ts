import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { AuditWorkflow, NotificationWorkflow } from '../../workflows';
import {
  notificationWorkflowId,
  type NotificationAttemptOutcome,
  type NotificationWorkflowInput,
  type PlannedNotification,
} from '../../workflows/contracts';
import { ActivityStubs } from './support/activity-stubs';
import { withWorker, workflowTestEnvironment } from './support/environment';

/**
 * NotificationWorkflow on a real dev server with stubbed activities (docs/architecture.md,
 * "Notifications"): attempts on the delivery schedule until one is done, a 429's Retry-After, the
 * last attempt; and the audit workflow starting one per planned notification.
 */
describe('NotificationWorkflow', function () {
  this.timeout(60_000);

  before(async () => {
    await workflowTestEnvironment();
  });

  const retry: NotificationAttemptOutcome = { done: false, delivered: false, retryAfterMs: null };
  const sent: NotificationAttemptOutcome = { done: true, delivered: true, retryAfterMs: null };
  const refused: NotificationAttemptOutcome = { done: true, delivered: false, retryAfterMs: null };

  function planned(overrides: Partial<PlannedNotification> = {}): PlannedNotification {
    return {
      notificationId: `ntf_WFTEST${randomUUID().replace(/-/g, '')}`,
      channelId: 'nch_workflowtest',
      event: 'audit.failed',
      eventAt: new Date().toISOString(),
      about: { auditId: 'aud_workflowtest' },
      workspaceId: 'ws_workflow_tests',
      mode: 'live',
      ...overrides,
    };
  }

  /** Runs one notification whose attempts answer `outcomes` in turn; returns its result and the attempts' inputs with their times. */
  async function run(outcomes: NotificationAttemptOutcome[], retryDelaysMs: number[], recorded = true) {
    const times: number[] = [];
    const stubs = new ActivityStubs({
      recordNotification: async () => recorded,
      attemptNotification: async (input) => {
        times.push(Date.now());
        return outcomes[input.attempt - 1] ?? retry;
      },
    });
    const env = await workflowTestEnvironment();
    const input: NotificationWorkflowInput = { ...planned(), retryDelaysMs, timeoutMs: 1_000 };
    const result = await withWorker(stubs.activities, (taskQueue) =>
      env.client.workflow.execute(NotificationWorkflow, {
        workflowId: notificationWorkflowId(input.notificationId),
        taskQueue,
        args: [input],
      }),
    );
    return { result, stubs, times, input };
  }

  it('logs the notification first, then retries after each delay until an attempt sends it', async () => {
    const { result, stubs, times, input } = await run([retry, retry, sent], [200, 400, 800]);
    assert.deepEqual(result, { delivered: true, attempts: 3 });
    const { retryDelaysMs: _delays, timeoutMs: _timeout, ...logged } = input;
    assert.deepEqual(stubs.inputsOf('recordNotification'), [logged]);
    assert.deepEqual(
      stubs.inputsOf('attemptNotification').map((call) => [call.attempt, call.last]),
      [
        [1, false],
        [2, false],
        [3, false],
      ],
    );
    assert.ok(times[1] - times[0] >= 200 && times[2] - times[1] >= 400, `attempts at ${times.join(', ')}`);
  });

  it('stops at an attempt refused for good', async () => {
    const { result } = await run([refused], [100, 100]);
    assert.deepEqual(result, { delivered: false, attempts: 1 });
  });

  it("waits out a 429's Retry-After when it is longer than the next delay", async () => {
    const { result, times } = await run([{ ...retry, retryAfterMs: 1_000 }, sent], [50]);
    assert.deepEqual(result, { delivered: true, attempts: 2 });
    assert.ok(times[1] - times[0] >= 1_000, `second attempt after ${times[1] - times[0]} ms`);
  });

  it('ends after the last attempt of the schedule, marked last', async () => {
    const { result, stubs } = await run([], [50, 50]);
    assert.deepEqual(result, { delivered: false, attempts: 3 });
    assert.deepEqual(
      stubs.inputsOf('attemptNotification').map((call) => call.last),
      [false, false, true],
    );
  });

  it('sends nothing when there is nothing to log (the channel or the audit is gone)', async () => {
    const { result, stubs } = await run([sent], [50], false);
    assert.deepEqual(result, { delivered: false, attempts: 0 });
    assert.equal(stubs.inputsOf('attemptNotification').length, 0);
  });

  it('is started by the audit workflow for each notification planned for audit.failed, after the webhooks', async () => {
    const notifications = [planned(), planned({ channelId: 'nch_other' })];
    const stubs = new ActivityStubs({
      runAudit: async () => {
        throw ApplicationFailure.nonRetryable('stubbed robots_disallowed', 'robots_disallowed');
      },
      planNotifications: async (occasion) => (occasion.event === 'audit.failed' ? notifications : []),
    });
    const env = await workflowTestEnvironment();
    const auditId = `aud_WFNOTIFY${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const result = await withWorker(stubs.activities, async (taskQueue) => {
      const outcome = await env.client.workflow.execute(AuditWorkflow, {
        workflowId: auditId,
        taskQueue,
        args: [
          {
            auditId,
            workspaceId: 'ws_workflow_tests',
            mode: 'live',
            domain: 'https://example.com',
            tier: 'pro',
            retryDelaysMs: [],
            heartbeatTimeoutMs: 10_000,
            delivery: { retryDelaysMs: [50], redeliveryWindowMs: 0, timeoutMs: 1_000 },
            reportTaskQueue: `workflow-test-reports-${randomUUID()}`,
          },
        ],
      });
      // The notifications outlive the audit (abandoned children): each sends its one attempt.
      for (const n of notifications)
        await env.client.workflow.getHandle(notificationWorkflowId(n.notificationId)).result();
      return outcome;
    });
    assert.equal(result.status, 'failed');
    const [occasion] = stubs.inputsOf('planNotifications');
    assert.equal(occasion.event, 'audit.failed');
    assert.ok('auditId' in occasion && occasion.auditId === auditId);
    assert.deepEqual(
      stubs
        .inputsOf('attemptNotification')
        .map((call) => call.notificationId)
        .sort(),
      notifications.map((n) => n.notificationId).sort(),
    );
  });
});
