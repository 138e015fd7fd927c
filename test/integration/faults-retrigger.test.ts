import type { RunningApi } from '../../processes/api-service';
import type { Config } from '../../src/config';
import assert from 'node:assert/strict';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import {
  createAuditActivities,
  createDeliveryActivities,
  createNotificationActivities,
  createReportPlanningActivities,
} from '../../activities';
import { createMailer } from '../../src/mail/mailer';
import { createLiveEngine } from '../../src/audits/live-engine';
import { startTemporalWorker } from '../../temporal/worker';
import { api, getStack, newAccount, startExtraApi, stopExtraApi, waitForAudit, workflowBundle } from '../support/stack';
import { startReceiver, until } from '../support/receiver';
import { markCompleted, markRunning, type AuditRow } from '../../src/audits/repository';
import { startAuditWorkflow, type StartOutcome } from '../../src/audits/workflow-start';
import { reconcilePendingStarts } from '../../src/audits/reconciler';
import type { AuditScheduler } from '../../src/audits/scheduler';
import { ClosableConnection } from '../../temporal/closable-connection';
import type { AuditWorkflowInput } from '../../workflows/contracts';
import { closedPort } from '../support/sites';
import { TemporalAuditScheduler } from '../../temporal/audit-scheduler';

describe('a test-mode re-trigger that terminates an audit while it plans its webhook deliveries', function () {
  this.timeout(60_000);

  it('leaves no pending delivery row without a delivery workflow; every logged delivery is delivered', async () => {
    const stack = await getStack();
    const { client } = stack.service.temporal;
    const config = { ...stack.config, taskQueue: 'audits-retrigger-test' };
    // The real activities; the first planning of an event is held for a moment, so the re-trigger
    // surely terminates the run between planning its deliveries and starting them.
    let planningReached: () => void = () => undefined;
    const firstPlanning = new Promise<void>((resolve) => (planningReached = resolve));
    let held = false;
    const real = await realActivities(config);
    const worker = await startWorkerOn(config, {
      ...real,
      async planDeliveries(input: Parameters<typeof real.planDeliveries>[0]) {
        const planned = await real.planDeliveries(input);
        if (!held) {
          held = true;
          planningReached();
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
        return planned;
      },
    });
    const customer = await startReceiver();
    let apiForQueue: RunningApi | undefined;
    try {
      apiForQueue = await startExtraApi({ config });
      const baseUrl = apiForQueue.url;
      const account = await newAccount('pro');
      const webhook = await api('POST', '/v1/webhooks', {
        key: account.testKey,
        baseUrl,
        body: { url: customer.url },
      });
      assert.equal(webhook.status, 201, webhook.text);
      const trigger = () =>
        api('POST', '/v1/audits', {
          key: account.testKey,
          baseUrl,
          body: { domain: 'https://retrigger.example.com' },
        });
      const first = await trigger();
      assert.equal(first.status, 202, first.text);
      await firstPlanning;
      const second = await trigger();
      assert.equal(second.body.audit_id, first.body.audit_id, 'the same test audit, re-run');
      const auditId: string = second.body.audit_id;
      const done = await waitForAudit(account.testKey, auditId, 30_000);
      assert.equal(done.body.status, 'completed', done.text);

      // The second run's audit.completed is delivered; nothing of the terminated run stays pending.
      const rows = await until(
        async () => {
          const deliveries = await stack.db('deliveries').where({ audit_id: auditId }).select('id', 'state');
          return deliveries.length > 0 && deliveries.every((d) => d.state === 'delivered') && deliveries;
        },
        20_000,
        'every logged delivery to be delivered',
      ).catch(async (err) => {
        const pending = await stack.db('deliveries').where({ audit_id: auditId, state: 'pending' }).pluck('id');
        const behind = await Promise.all(
          pending.map((id) =>
            client.workflow
              .getHandle(id)
              .describe()
              .then(
                (d) => `${id} ${d.status.name}`,
                () => `${id} without workflow`,
              ),
          ),
        );
        throw new Error(`${(err as Error).message}; pending: ${behind.join(', ')}`);
      });
      assert.equal(rows.length, 1);
      // Acknowledged at its first attempt, made by the audit's run: it needed no workflow of its own.
      await assert.rejects(client.workflow.getHandle(rows[0].id).describe(), WorkflowNotFoundError);
      assert.equal(customer.received.length, 0, 'test-mode deliveries go to the mock receiver');
    } finally {
      await stopExtraApi(apiForQueue);
      await worker.shutdown();
      await customer.close();
    }
  });
});

describe('a test-mode re-trigger whose replaced run is still writing', function () {
  this.timeout(60_000);

  it('keeps the re-run\'s completed audit: the replaced run\'s late "running" is dropped', async () => {
    const stack = await getStack();
    const config = { ...stack.config, taskQueue: 'audits-stale-run-test' };
    const real = await realActivities(config);
    // The first run's synthetic run is held until the re-run has completed the audit; then, like a
    // replaced run's activity cancelled mid-way, it marks the audit running and ends without a result.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstHeld: () => void = () => undefined;
    const firstReached = new Promise<void>((resolve) => (firstHeld = resolve));
    let staleWriteDone: () => void = () => undefined;
    const staleWrite = new Promise<void>((resolve) => (staleWriteDone = resolve));
    let calls = 0;
    const worker = await startWorkerOn(config, {
      ...real,
      async runAudit(input: Parameters<typeof real.runAudit>[0]) {
        if (++calls > 1) return real.runAudit(input);
        firstHeld();
        await released;
        try {
          await real.markAuditRunning(input);
        } finally {
          staleWriteDone();
        }
        throw new Error('the replaced run was cancelled');
      },
    });
    let apiForQueue: RunningApi | undefined;
    try {
      apiForQueue = await startExtraApi({ config });
      const account = await newAccount('pro');
      const trigger = () =>
        api('POST', '/v1/audits', {
          key: account.testKey,
          baseUrl: apiForQueue!.url,
          body: { domain: 'https://stale-run.example.com' },
        });
      const first = await trigger();
      assert.equal(first.status, 202, first.text);
      await firstReached;
      const second = await trigger();
      assert.equal(second.body.audit_id, first.body.audit_id);
      const done = await waitForAudit(account.testKey, second.body.audit_id, 30_000);
      assert.equal(done.body.status, 'completed', done.text);

      release();
      await staleWrite;
      const row = await stack.db('audits').where({ id: second.body.audit_id }).first('status', 'result_json');
      assert.equal(row.status, 'completed');
      assert.equal(row.result_json, done.text);
    } finally {
      release();
      await stopExtraApi(apiForQueue);
      await worker.shutdown();
    }
  });

  it("replaces a start that reached Temporal after a later trigger's with a run of the current count", async () => {
    const stack = await getStack();
    const { client, connection } = stack.service.temporal;
    const row = await auditTriggeredTwice('https://late-start.example.com');

    // The first trigger's start, arriving only now: it replaces the current run with one of count 0.
    const scheduler = new TemporalAuditScheduler(client, connection, stack.config.taskQueue);
    assert.ok(await scheduler.probe());
    assert.equal(await startFirstTriggerLate(row, scheduler), 'started');
    const handle = client.workflow.getHandle(row.id);
    assert.deepEqual(await handle.result(), { status: 'completed', attempts: 1 });
    assert.equal(await startedGeneration(row.id), 1, 'the run left running is of the current count');
    const after = await stack.db('audits').where({ id: row.id }).first('status', 'run_generation');
    assert.deepEqual(after, { status: 'completed', run_generation: 1 });
  });

  it('owes the start again when the replacing start cannot be made: the reconciler runs the current count', async () => {
    const stack = await getStack();
    const { client, connection } = stack.service.temporal;
    const row = await auditTriggeredTwice('https://late-start-down.example.com');
    assert.equal(await owedStarts(row.id), 0);

    // The late start reaches Temporal; Temporal is gone when the start for the current count is made.
    const up = new TemporalAuditScheduler(client, connection, stack.config.taskQueue);
    assert.ok(await up.probe());
    const deadConnection = ClosableConnection.open({ address: `127.0.0.1:${await closedPort()}` });
    const down = new TemporalAuditScheduler(
      new Client({ connection: deadConnection }),
      deadConnection,
      stack.config.taskQueue,
    );
    await down.probe();
    let starts = 0;
    const scheduler: AuditScheduler = {
      start: (input) => (starts++ === 0 ? up.start(input) : down.start(input)),
      available: () => true,
      probe: () => up.probe(),
    };
    try {
      assert.equal(await startFirstTriggerLate(row, scheduler), 'postponed');
      assert.equal(starts, 2);
    } finally {
      await deadConnection.close().catch(() => undefined);
    }
    assert.equal(await owedStarts(row.id), 1, 'owed again, for the reconciler');
    await reconcilePendingStarts({ db: stack.db, config: stack.config, scheduler: up, giveUpMs: 3600_000 });
    assert.equal(await owedStarts(row.id), 0);
    const handle = client.workflow.getHandle(row.id);
    assert.deepEqual(await handle.result(), { status: 'completed', attempts: 1 });
    assert.equal(await startedGeneration(row.id), 1);
  });

  it('counts the runs of a re-run audit: only the current one writes; a write naming no run is not checked', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    const id = `aud_RUNCOUNT${Date.now()}`;
    const now = new Date();
    await stack.db('audits').insert({
      id,
      workspace_id: account.workspaceId,
      account_id: account.accountId,
      mode: 'test',
      domain: 'https://run-count.example.com',
      tier: 'pro',
      status: 'queued',
      charged: false,
      created_at: now,
      updated_at: now,
      run_generation: 1,
    });
    const completed = { resultJson: '{}', score: 90, grade: 'A', completedAt: now };
    assert.equal(await markCompleted(stack.db, id, { ...completed, generation: 1 }), 'written');
    assert.equal(await markRunning(stack.db, id, { attempt: 1, at: now, generation: 0 }), 'superseded');
    assert.equal((await stack.db('audits').where({ id }).first('status')).status, 'completed');
    assert.equal(await markRunning(stack.db, id, { attempt: 1, at: now, generation: 2 }), 'superseded');
    assert.equal(await markRunning(stack.db, id, { attempt: 2, at: now }), 'written');
    assert.equal((await stack.db('audits').where({ id }).first('status')).status, 'running');
    assert.equal(await markRunning(stack.db, 'aud_NOSUCHAUDIT', { attempt: 1, at: now, generation: 1 }), 'missing');
  });
});

/** The audit worker's activities, for real, as a worker on the config's task queue runs them. */
async function realActivities(config: Config) {
  const stack = await getStack();
  return {
    ...createAuditActivities({ db: stack.db, clock: stack.clock, engine: createLiveEngine(config) }),
    ...createReportPlanningActivities({ db: stack.db }),
    ...createDeliveryActivities({
      db: stack.db,
      clock: stack.clock,
      timeoutMs: config.deliveryTimeoutMs,
      allow: config.outboundAllow,
      testMockUrl: `${stack.url}/mock/webhooks`,
    }),
    ...createNotificationActivities({
      db: stack.db,
      clock: stack.clock,
      config,
      mailer: createMailer({ transport: undefined, from: config.mailFrom, db: stack.db, clock: stack.clock }),
      testMockUrl: `${stack.url}/mock/webhooks`,
    }),
  };
}

/** A worker of the test's own on the config's task queue, with the activities the test gives it. */
async function startWorkerOn(config: Config, activities: Awaited<ReturnType<typeof realActivities>>) {
  const stack = await getStack();
  return startTemporalWorker({
    address: stack.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
  });
}

/** A test audit triggered, completed, triggered again and completed again: its row at count 1. */
async function auditTriggeredTwice(domain: string): Promise<AuditRow> {
  const stack = await getStack();
  const account = await newAccount('pro');
  const trigger = () => api('POST', '/v1/audits', { key: account.testKey, body: { domain } });
  const { body } = await trigger();
  await waitForAudit(account.testKey, body.audit_id);
  await trigger();
  await waitForAudit(account.testKey, body.audit_id);
  await stack.service.temporal.client.workflow.getHandle(body.audit_id).result();
  const row: AuditRow = await stack.db('audits').where({ id: body.audit_id }).first();
  assert.equal(row.run_generation, 1);
  return row;
}

/** The start of the audit's first trigger (count 0), reaching Temporal only now, after the second's. */
async function startFirstTriggerLate(row: AuditRow, scheduler: AuditScheduler): Promise<StartOutcome> {
  const { db, config } = await getStack();
  const { id, workspace_id, mode, domain, tier } = row;
  return startAuditWorkflow(
    { db, config, scheduler },
    { auditId: id, token: 'an-earlier-trigger' },
    { id, workspace_id, mode, domain, tier, run_generation: 0 },
  );
}

async function owedStarts(auditId: string): Promise<number> {
  return (await (await getStack()).db('pending_audit_starts').where({ audit_id: auditId })).length;
}

/** The count the audit's latest workflow run was started for. */
async function startedGeneration(auditId: string): Promise<number> {
  const history = await (await getStack()).service.temporal.client.workflow.getHandle(auditId).fetchHistory();
  const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  return (JSON.parse(Buffer.from(input!).toString()) as AuditWorkflowInput).generation!;
}
