import assert from 'node:assert/strict';
import { Client } from '@temporalio/client';
import { ClosableConnection } from '../../temporal/closable-connection';
import { accountUsage } from '../../src/accounts/usage';
import { runScheduledSite } from '../../src/sites/runs';
import { planDeliveries } from '../../src/webhooks/planning';
import { serviceSignature } from '../../src/webhooks/signing';
import { TemporalAuditScheduler } from '../../temporal/audit-scheduler';
import { DeliveryWorkflow } from '../../workflows';
import type { RunningApi } from '../../processes/api-service';
import { startReceiver, until } from '../support/receiver';
import { serveSite, type LocalSite } from '../support/sites';
import { api, getStack, newAccount, seedLiveAudits, startExtraApi } from '../support/stack';
import { seedCompletedAudit } from '../support/site-audits';

const HOME = '<!doctype html><html lang="en"><head><title>Monitored</title></head><body><h1>Hi</h1></body></html>';

/** Sites created through this API fire every second (SITE_SCHEDULE_OVERRIDE_MS=1000). */
let fast: RunningApi;
let local: LocalSite;

async function createSite(key: string, domain: string): Promise<string> {
  const response = await api('POST', '/v1/sites', { key, body: { domain, schedule: 'daily' }, baseUrl: fast.url });
  assert.equal(response.status, 201, response.text);
  return response.body.site_id;
}

async function runs(siteId: string): Promise<Array<{ outcome: string; audit_id: string | null; skip_reason: string }>> {
  const { db } = await getStack();
  return db('site_runs').where({ site_id: siteId }).orderBy('scheduled_at');
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('site schedules', function () {
  this.timeout(90_000);

  before(async () => {
    const stack = await getStack();
    fast = await startExtraApi({ config: { ...stack.config, siteScheduleOverrideMs: 1000 } });
    local = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  });
  after(() => local.close());

  it('fire on the schedule and run synthetic audits in test mode, free and unthrottled', async () => {
    const account = await newAccount('pro');
    const siteId = await createSite(account.testKey, 'https://monitored.example.com');
    const site = await api('GET', `/v1/sites/${siteId}`, { key: account.testKey, baseUrl: fast.url });
    assert.ok(Date.parse(site.body.next_run_at) - Date.now() <= 1000, site.body.next_run_at);
    const started = await until(
      async () => ((await runs(siteId)).filter((r) => r.outcome === 'started').length >= 3 ? runs(siteId) : false),
      20_000,
      'three scheduled runs',
    );
    const auditId = started[0].audit_id!;
    assert.match(auditId, /^aud_/);
    const history = await until(async () => {
      const page = await api('GET', `/v1/sites/${siteId}/history`, { key: account.testKey });
      return page.body.data.length > 0 ? page.body : false;
    });
    assert.equal(history.data[0].audit_id, auditId);
    assert.equal(typeof history.data[0].score, 'number');
    const { db, clock } = await getStack();
    assert.equal((await accountUsage(db, account.accountId, clock.now())).used, 0);
    const listed = await api('GET', `/v1/sites/${siteId}/runs?limit=1`, { key: account.testKey });
    assert.equal(listed.body.data[0].outcome, 'started');
    assert.equal(listed.body.has_more, true);
    await api('DELETE', `/v1/sites/${siteId}`, { key: account.testKey, baseUrl: fast.url });
  });

  it('record a run refused by an exhausted quota as skipped, with its reason, charging nothing', async () => {
    const account = await newAccount('pro');
    const { db, clock } = await getStack();
    // The whole quota used, and the site audited before (its first audit would be free); outside
    // the burst window, so the quota is what refuses.
    await seedLiveAudits(account, 50, { createdAt: new Date(clock.now().getTime() - 120_000), domain: local.origin });
    const audits = async () => (await db('audits').where({ account_id: account.accountId })).length;
    const before = await audits();
    const siteId = await createSite(account.liveKey, local.origin);
    const skipped = await until(
      async () => (await runs(siteId)).filter((r) => r.outcome === 'skipped').length >= 2,
      20_000,
      'two skipped runs',
    );
    assert.ok(skipped);
    await api('PATCH', `/v1/sites/${siteId}`, { key: account.liveKey, body: { paused: true }, baseUrl: fast.url });
    for (const run of await runs(siteId)) {
      assert.equal(run.outcome, 'skipped');
      assert.equal(run.skip_reason, 'audit_quota_exceeded');
      assert.equal(run.audit_id, null);
    }
    assert.equal(await audits(), before);
    assert.equal((await accountUsage(db, account.accountId, clock.now())).used, 50);
    const listed = await api('GET', `/v1/sites/${siteId}/runs`, { key: account.liveKey });
    assert.equal(listed.body.data[0].skip_reason, 'audit_quota_exceeded');
    assert.match(listed.body.data[0].skip_message, /monthly quota of 50 audits is used up/);
  });

  it('stop firing while paused and once deleted', async () => {
    const account = await newAccount('pro');
    const siteId = await createSite(account.testKey, 'https://pausing.example.com');
    await until(async () => (await runs(siteId)).length >= 1, 20_000, 'a first run');
    await api('PATCH', `/v1/sites/${siteId}`, { key: account.testKey, body: { paused: true }, baseUrl: fast.url });
    await pause(500); // a firing already on its way may still land
    const whilePaused = (await runs(siteId)).length;
    await pause(3000);
    assert.equal((await runs(siteId)).length, whilePaused, 'no run while paused');
    await api('PATCH', `/v1/sites/${siteId}`, { key: account.testKey, body: { paused: false }, baseUrl: fast.url });
    await until(async () => (await runs(siteId)).length > whilePaused, 20_000, 'runs again once resumed');

    const { db } = await getStack();
    const audit = (await runs(siteId))[0].audit_id!;
    await api('DELETE', `/v1/sites/${siteId}`, { key: account.testKey, baseUrl: fast.url });
    await pause(500);
    const updated = (await db('audits').where({ id: audit }).first('updated_at')).updated_at;
    await pause(3000);
    // A test site re-runs its one audit: a firing after the delete would have touched the row again.
    assert.deepEqual((await db('audits').where({ id: audit }).first('updated_at')).updated_at, updated);
    assert.equal((await db('site_runs').where({ site_id: siteId })).length, 0);
  });

  it('charge a retried firing once: same Idempotency-Key, same audit, one run row', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    await seedLiveAudits(account, 1, { createdAt: stack.clock.now(), domain: local.origin });
    const created = await api('POST', '/v1/sites', {
      key: account.liveKey,
      body: { domain: local.origin, schedule: 'monthly' },
    });
    const siteId = created.body.site_id;
    const connection = ClosableConnection.open({ address: stack.temporalAddress });
    try {
      const scheduler = new TemporalAuditScheduler(new Client({ connection }), connection, stack.config.taskQueue);
      await scheduler.probe();
      const deps = { db: stack.db, clock: stack.clock, config: stack.config, scheduler };
      const scheduledAt = new Date('2026-11-23T07:00:00.000Z');
      const first = await runScheduledSite(deps, { siteId, scheduledAt });
      assert.equal(first.outcome, 'started');
      // The worker was lost after the trigger committed, before the run was recorded.
      await stack.db('site_runs').where({ site_id: siteId }).delete();
      const again = await runScheduledSite(deps, { siteId, scheduledAt });
      assert.equal(again.run?.audit_id, first.run?.audit_id);
      const third = await runScheduledSite(deps, { siteId, scheduledAt });
      assert.equal(third.run?.id, again.run?.id);
      assert.equal((await stack.db('site_runs').where({ site_id: siteId })).length, 1);
      const usage = await accountUsage(stack.db, account.accountId, stack.clock.now());
      assert.equal(usage.used, 2, 'the seeded audit and one scheduled run');
    } finally {
      await connection.close();
    }
  });

  it('send site.regressed, signed, only to the webhook that subscribed to it', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    const subscribed = await startReceiver();
    const other = await startReceiver();
    try {
      const hook = async (url: string, events?: string[]) =>
        (await api('POST', '/v1/webhooks', { key: account.liveKey, body: { url, ...(events ? { events } : {}) } }))
          .body;
      const a = await hook(subscribed.url, ['audit.completed', 'site.regressed']);
      const b = await hook(other.url);
      assert.deepEqual(b.events, ['audit.completed', 'audit.failed', 'audit.retried']);
      const created = await api('POST', '/v1/sites', {
        key: account.liveKey,
        body: { domain: local.origin, schedule: 'daily' },
      });
      const previous = await seedCompletedAudit(account, { domain: local.origin, mode: 'live', fingerprints: [] });
      const comparison = (delta: number) => ({
        previous_audit_id: previous,
        previous_score: 80 - delta,
        score_delta: delta,
        categories: {},
        new: ['fp_new1'],
        fixed: [],
        unchanged: 0,
      });
      const regressed = await seedCompletedAudit(account, {
        domain: local.origin,
        mode: 'live',
        fingerprints: ['fp_new1'],
        extra: { comparison: comparison(-1) },
      });
      const planned = await planDeliveries(stack.db, {
        auditId: regressed,
        emissionKey: 'test:1',
        details: { event: 'audit.completed' },
        now: stack.clock.now(),
      });
      const regressions = planned.filter((p) => p.details?.event === 'site.regressed');
      assert.deepEqual(
        regressions.map((p) => p.webhookId),
        [a.webhook_id],
      );
      assert.equal(planned.filter((p) => !p.details).length, 2, 'audit.completed to both');

      const connection = ClosableConnection.open({ address: stack.temporalAddress });
      try {
        const [delivery] = regressions;
        await new Client({ connection }).workflow.start(DeliveryWorkflow, {
          workflowId: delivery.deliveryId,
          taskQueue: stack.config.taskQueue,
          args: [
            {
              deliveryId: delivery.deliveryId,
              eventAt: delivery.createdAt,
              retryDelaysMs: [100],
              redeliveryWindowMs: 1000,
              timeoutMs: 2000,
              record: { auditId: regressed, webhookId: a.webhook_id, url: delivery.url, details: delivery.details! },
            },
          ],
        });
      } finally {
        await connection.close();
      }
      const received = await until(() => subscribed.received[0], 15_000, 'site.regressed delivery');
      assert.equal(received.headers['x-service-event'], 'site.regressed');
      assert.equal(received.headers['x-service-signature'], serviceSignature(a.secret, received.body));
      assert.deepEqual(JSON.parse(received.body), {
        site_id: created.body.site_id,
        audit_id: regressed,
        previous_audit_id: previous,
        score: 80,
        previous_score: 81,
        new_findings: [{ fingerprint: 'fp_new1', analyzer: 'SEC_HSTS_MISSING', severity: 'high', title: 'Finding 0' }],
      });
      assert.equal(other.received.length, 0);

      // A small drop without a new high or critical finding is no regression.
      const calm = await seedCompletedAudit(account, {
        domain: local.origin,
        mode: 'live',
        fingerprints: [],
        extra: { comparison: { ...comparison(-4), new: [] } },
      });
      const quiet = await planDeliveries(stack.db, {
        auditId: calm,
        emissionKey: 'test:2',
        details: { event: 'audit.completed' },
        now: stack.clock.now(),
      });
      assert.equal(quiet.filter((p) => p.details).length, 0);
    } finally {
      await subscribed.close();
      await other.close();
    }
  });
});
