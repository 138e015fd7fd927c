import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { AuditWorkflow, ReportWorkflow } from '../../workflows';
import {
  AUDIT_STATUS,
  deliveryWorkflowId,
  reportWorkflowId,
  type AuditFailureCode,
  type AuditWorkflowInput,
} from '../../workflows/contracts';
import { ActivityStubs } from './support/activity-stubs';
import { withWorker, workflowTestEnvironment } from './support/environment';

/**
 * AuditWorkflow on a real dev server with stubbed activities: its retry loop, the events it emits
 * and the deliveries and report it starts. Retry delays are 50 ms (inputs, as AUDIT_RETRY_DELAYS_MS
 * would be) since this server cannot skip time.
 */
describe('AuditWorkflow', function () {
  this.timeout(60_000);

  before(async () => {
    await workflowTestEnvironment();
  });

  it('ends at once on robots_disallowed: one attempt, one audit.failed', async () => {
    const stubs = new ActivityStubs({ runAudit: failWith('robots_disallowed') });
    // Retries are configured: robots_disallowed alone is why there is no second attempt.
    const input = auditInput({ retryDelaysMs: [50, 50] });
    const result = await runAudit(stubs, input);

    assert.deepEqual(result, { status: 'failed', attempts: 1 });
    assert.equal(await auditStatusOf(input.auditId), 'failed');
    assert.equal(stubs.inputsOf('runAudit').length, 1);
    assert.deepEqual(eventsOf(stubs), ['audit.failed']);
    assert.equal(stubs.inputsOf('markAuditWaitingForRetry').length, 0);
    assert.deepEqual(
      stubs.inputsOf('markAuditFailed').map((call) => [call.attempts, call.error.code]),
      [[1, 'robots_disallowed']],
    );
  });

  it('retries each failed attempt with an audit.retried of its number, then fails with audit.failed', async () => {
    const stubs = new ActivityStubs({ runAudit: failWith('domain_unreachable') });
    const result = await runAudit(stubs, auditInput({ retryDelaysMs: [50, 50], generation: 3 }));

    assert.deepEqual(result, { status: 'failed', attempts: 3 });
    assert.deepEqual(
      stubs.inputsOf('runAudit').map((call) => [call.attempt, call.finalAttempt]),
      [
        [1, false],
        [2, false],
        [3, true],
      ],
    );
    assert.deepEqual(eventsOf(stubs), ['audit.retried', 'audit.retried', 'audit.failed']);
    const retried = stubs
      .inputsOf('planDeliveries')
      .flatMap((call) => (call.details.event === 'audit.retried' ? [call.details] : []));
    assert.deepEqual(
      retried.map((details) => [details.attempt, details.maxRetries, details.error.code]),
      [
        [1, 2, 'domain_unreachable'],
        [2, 2, 'domain_unreachable'],
      ],
    );
    assert.deepEqual(
      stubs.inputsOf('markAuditFailed').map((call) => call.attempts),
      [3],
    );
    // Every projection write names the run (its generation), so a re-trigger's run supersedes them.
    const generations = new Set(
      [
        ...stubs.inputsOf('markAuditRunning'),
        ...stubs.inputsOf('runAudit'),
        ...stubs.inputsOf('markAuditWaitingForRetry'),
        ...stubs.inputsOf('markAuditFailed'),
      ].map((call) => call.generation),
    );
    assert.deepEqual([...generations], [3]);
  });

  it('completes with audit.completed when an attempt after a retry succeeds', async () => {
    const stubs = new ActivityStubs({ runAudit: failingOnce('target_rate_limited') });
    const input = auditInput({ retryDelaysMs: [50, 50] });
    const result = await runAudit(stubs, input);

    assert.deepEqual(result, { status: 'completed', attempts: 2 });
    assert.equal(await auditStatusOf(input.auditId), 'completed');
    assert.deepEqual(eventsOf(stubs), ['audit.retried', 'audit.completed']);
    assert.equal(stubs.inputsOf('markAuditFailed').length, 0);
  });

  it('plans each event once, makes every first attempt itself, and starts a DeliveryWorkflow only for those not acknowledged', async () => {
    const stubs = new ActivityStubs({
      runAudit: failingOnce('audit_provider_unavailable'),
      // Two subscribed webhooks: ids derive from the emission key, as the real planning's do.
      planDeliveries: async ({ emissionKey }) =>
        WEBHOOKS.map((webhookId) => ({
          deliveryId: plannedDeliveryId(emissionKey, webhookId),
          createdAt: new Date().toISOString(),
          webhookId,
          url: `http://127.0.0.1:9/${webhookId}`,
        })),
      // wh_b refuses every first attempt; wh_a acknowledges it.
      sendFirstAttempts: async ({ deliveries, nextDelayMs }) => ({
        unrecorded: [],
        retrying: deliveries
          .filter((d) => d.webhookId === 'wh_b')
          .map((delivery) => ({ delivery, attempt: refusedFirstAttempt(delivery.deliveryId, nextDelayMs) })),
      }),
    });
    const input = auditInput({ retryDelaysMs: [50] });
    const env = await workflowTestEnvironment();

    const { result, childIds } = await withWorker(stubs.activities, async (taskQueue) => {
      const handle = await env.client.workflow.start(AuditWorkflow, {
        workflowId: input.auditId,
        taskQueue,
        args: [input],
      });
      const result = await handle.result();
      const childIds = startedChildren((await handle.fetchHistory()).events ?? [], 'DeliveryWorkflow');
      // The deliveries outlive the audit: wait for each before the worker stops.
      await Promise.all(childIds.map((id) => env.client.workflow.getHandle(id).result()));
      return { result, childIds };
    });

    assert.deepEqual(result, { status: 'completed', attempts: 2 });
    assert.deepEqual(eventsOf(stubs), ['audit.retried', 'audit.completed'], 'each event planned once');
    const emissionKeys = stubs.inputsOf('planDeliveries').map((call) => call.emissionKey);
    assert.equal(new Set(emissionKeys).size, 2);
    // Every planned delivery's first attempt, made by the audit workflow, with the first retry delay.
    const sent = stubs.inputsOf('sendFirstAttempts');
    assert.deepEqual(
      sent.map((call) => [call.details.event, call.deliveries.map((d) => d.webhookId), call.nextDelayMs]),
      [
        ['audit.retried', WEBHOOKS, 50],
        ['audit.completed', WEBHOOKS, 50],
      ],
    );
    // Only wh_b's deliveries go on in workflows of their own, each logging its refused first attempt.
    const refusedIds = emissionKeys.map((key) => plannedDeliveryId(key, 'wh_b'));
    assert.deepEqual([...childIds].sort(), refusedIds.map(deliveryWorkflowId).sort());
    const logged = stubs.inputsOf('recordFirstAttempts');
    assert.deepEqual(
      logged
        .map((call) => [call.details.event, call.attempts.map((a) => [a.delivery.deliveryId, a.attempt.attempt])])
        .sort(),
      [
        ['audit.retried', [[refusedIds[0], 1]]],
        ['audit.completed', [[refusedIds[1], 1]]],
      ].sort(),
    );
    // Their automatic schedule goes on at attempt 2; nothing makes a first attempt again.
    assert.deepEqual(
      stubs
        .attempts()
        .map((call) => [call.deliveryId, call.attempt, call.local])
        .sort(),
      refusedIds.map((id) => [id, 2, false]).sort(),
    );
    assert.equal(stubs.inputsOf('recordDelivery').length, 0);
  });

  it('logs, through an activity, first attempts that were acknowledged but could not be logged', async () => {
    const planned = { deliveryId: 'dlv_unlogged', createdAt: new Date().toISOString(), webhookId: 'wh_a', url: 'x' };
    const acknowledged = { ...refusedFirstAttempt(planned.deliveryId, 50), statusCode: 200, errorClass: null };
    const stubs = new ActivityStubs({
      planDeliveries: async () => [planned],
      sendFirstAttempts: async () => ({ unrecorded: [{ delivery: planned, attempt: acknowledged }], retrying: [] }),
    });
    const input = auditInput();
    const env = await workflowTestEnvironment();

    const history = await withWorker(stubs.activities, async (taskQueue) => {
      const handle = await env.client.workflow.start(AuditWorkflow, {
        workflowId: input.auditId,
        taskQueue,
        args: [input],
      });
      assert.deepEqual(await handle.result(), { status: 'completed', attempts: 1 });
      return handle.fetchHistory();
    });

    assert.deepEqual(
      stubs.inputsOf('recordFirstAttempts').map((call) => call.attempts),
      [[{ delivery: planned, attempt: acknowledged }]],
    );
    const events = history.events ?? [];
    // An activity (which waits out the outage), not a local one; and no delivery workflow.
    assert.equal(
      events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recordFirstAttempts').length,
      1,
    );
    assert.deepEqual(startedChildren(events, 'DeliveryWorkflow'), []);
  });

  it('goes on when the delivery log keeps refusing a datum: three tries per event, then the next step', async () => {
    const planned = { deliveryId: 'dlv_refused', createdAt: new Date().toISOString(), webhookId: 'wh_a', url: 'x' };
    const acknowledged = { ...refusedFirstAttempt(planned.deliveryId, 50), statusCode: 200, errorClass: null };
    const stubs = new ActivityStubs({
      runAudit: failingOnce('domain_unreachable'),
      planDeliveries: async () => [planned],
      sendFirstAttempts: async () => ({ unrecorded: [{ delivery: planned, attempt: acknowledged }], retrying: [] }),
      // What Postgres answers to a \u0000 escape in jsonb, whatever the number of tries.
      recordFirstAttempts: async () => {
        throw Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' });
      },
    });
    const result = await runAudit(stubs, auditInput({ retryDelaysMs: [50] }));

    assert.deepEqual(result, { status: 'completed', attempts: 2 });
    assert.deepEqual(eventsOf(stubs), ['audit.retried', 'audit.completed']);
    assert.equal(stubs.inputsOf('recordFirstAttempts').length, 6, 'three tries for each of the two events');
  });

  it('completes when a report render for the audit was already started (the request won the race)', async () => {
    const stubs = new ActivityStubs({ planReport: async () => ({ brandingRevision: 3 }) });
    const input = auditInput();
    const env = await workflowTestEnvironment();
    const reportId = reportWorkflowId(input.auditId, 3);
    // Nobody polls the report queue: the request's render stays in progress throughout.
    const requested = await env.client.workflow.start(ReportWorkflow, {
      workflowId: reportId,
      taskQueue: input.reportTaskQueue,
      args: [{ auditId: input.auditId }],
    });

    try {
      const { result, history } = await withWorker(stubs.activities, async (taskQueue) => {
        const handle = await env.client.workflow.start(AuditWorkflow, {
          workflowId: input.auditId,
          taskQueue,
          args: [input],
        });
        return { result: await handle.result(), history: await handle.fetchHistory() };
      });

      assert.deepEqual(result, { status: 'completed', attempts: 1 });
      assert.deepEqual(stubs.inputsOf('planReport'), [{ auditId: input.auditId }]);
      const events = history.events ?? [];
      assert.deepEqual(startedChildren(events, 'ReportWorkflow'), [reportId], 'the audit did try to start its render');
      assert.equal(events.filter((event) => event.startChildWorkflowExecutionFailedEventAttributes).length, 1);
      assert.equal(
        (await env.client.workflow.getHandle(reportId).describe()).runId,
        requested.firstExecutionRunId,
        'the requested render is the only one',
      );
    } finally {
      await requested.terminate('test over');
    }
  });
});

const WEBHOOKS = ['wh_a', 'wh_b'];

function plannedDeliveryId(emissionKey: string, webhookId: string): string {
  return `dlv_${emissionKey}_${webhookId}`.replace(/[^\w]/g, '_');
}

/** A first attempt the receiver answered 500, as sendFirstAttempts reports it. */
function refusedFirstAttempt(deliveryId: string, nextDelayMs: number | null) {
  const startedAt = new Date();
  return {
    deliveryId,
    attempt: 1,
    trigger: 'automatic' as const,
    startedAt: startedAt.toISOString(),
    durationMs: 3,
    statusCode: 500,
    errorClass: 'non_2xx',
    errorMessage: null,
    excerpt: 'no',
    nextAttemptAt: nextDelayMs === null ? null : new Date(startedAt.getTime() + nextDelayMs).toISOString(),
  };
}

let auditCounter = 0;

function auditInput(overrides: Partial<AuditWorkflowInput> = {}): AuditWorkflowInput {
  return {
    auditId: `aud_WFTEST${++auditCounter}_${randomUUID().slice(0, 8)}`,
    workspaceId: 'ws_workflow_tests',
    mode: 'live',
    domain: 'https://example.com',
    tier: 'pro',
    retryDelaysMs: [],
    heartbeatTimeoutMs: 10_000,
    // The children finish right after their one acknowledged attempt: no redelivery window to wait out.
    delivery: { retryDelaysMs: [50], redeliveryWindowMs: 0, timeoutMs: 1_000 },
    reportTaskQueue: `workflow-test-reports-${randomUUID()}`,
    ...overrides,
  };
}

async function runAudit(stubs: ActivityStubs, input: AuditWorkflowInput) {
  const env = await workflowTestEnvironment();
  return withWorker(stubs.activities, (taskQueue) =>
    env.client.workflow.execute(AuditWorkflow, { workflowId: input.auditId, taskQueue, args: [input] }),
  );
}

/** The AuditStatus search attribute the workflow keeps current (Temporal UI filters, visibility queries). */
async function auditStatusOf(auditId: string): Promise<string | undefined> {
  const env = await workflowTestEnvironment();
  return (await env.client.workflow.getHandle(auditId).describe()).typedSearchAttributes.get(AUDIT_STATUS);
}

/** What the real activity throws for a classified failure: non-retryable, typed by its code. */
function failure(code: AuditFailureCode): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`stubbed ${code}`, code);
}

function failWith(code: AuditFailureCode) {
  return async (): Promise<never> => {
    throw failure(code);
  };
}

function failingOnce(code: AuditFailureCode) {
  let calls = 0;
  return async () => {
    if (++calls === 1) throw failure(code);
    return { score: 80, grade: 'B' };
  };
}

function eventsOf(stubs: ActivityStubs): string[] {
  return stubs.inputsOf('planDeliveries').map((call) => call.details.event);
}

/** Workflow ids of the children of one type whose start the history records, in order. */
function startedChildren(events: temporal.api.history.v1.IHistoryEvent[], workflowType: string): string[] {
  return events.flatMap((event) => {
    const started = event.startChildWorkflowExecutionInitiatedEventAttributes;
    return started?.workflowType?.name === workflowType ? [started.workflowId ?? ''] : [];
  });
}
