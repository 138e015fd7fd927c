import assert from 'node:assert/strict';
import { Client, ScheduleOverlapPolicy } from '@temporalio/client';
import type { RunningApi } from '../../processes/api-service';
import { ClosableConnection } from '../../temporal/closable-connection';
import { siteScheduleId } from '../../workflows/contracts';
import { admin } from '../support/admin';
import { assertEnvelope } from '../support/envelope';
import { until } from '../support/receiver';
import { serveSite, type LocalSite } from '../support/sites';
import { api, getStack, newAccount, startExtraApi, stopExtraApi } from '../support/stack';

interface RunRow {
  outcome: string;
  audit_id: string | null;
  skip_reason: string | null;
}

const HOME = '<!doctype html><html lang="en"><head><title>Rendered</title></head><body><h1>Hi</h1></body></html>';

/** Fires the site's Temporal Schedule now, as an operator's `temporal schedule trigger --schedule-id site-…` does. */
async function triggerByHand(siteId: string): Promise<void> {
  const stack = await getStack();
  const connection = ClosableConnection.open({ address: stack.temporalAddress });
  try {
    // Even while the previous firing's workflow is still closing (the schedule's own policy skips overlaps).
    await new Client({ connection }).schedule
      .getHandle(siteScheduleId(siteId))
      .trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  } finally {
    await connection.close();
  }
}

/** Waits for the wall clock's next whole second. */
async function nextSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
}

async function runs(siteId: string): Promise<RunRow[]> {
  return (await getStack()).db('site_runs').where({ site_id: siteId }).orderBy('scheduled_at');
}

/** The run after the first `seen` ones, once it is recorded. */
async function nextRun(siteId: string, seen: number): Promise<RunRow> {
  const all = await until(async () => ((await runs(siteId)).length > seen ? runs(siteId) : false), 20_000, 'a run');
  return all[seen]!;
}

async function auditRender(auditId: string | null): Promise<string> {
  assert.ok(auditId, 'the run started an audit');
  return (await (await getStack()).db('audits').where({ id: auditId }).first('render')).render;
}

/**
 * A monitored site's `render` (README "Monitoring"): set on creation or by PATCH under the tier rule
 * of POST /audits' render option, shown in the site JSON, and passed by every run of the site,
 * scheduled or triggered by hand, to the audit it starts.
 */
describe('sites: render', function () {
  this.timeout(90_000);
  let fast: RunningApi | undefined;
  let local: LocalSite;

  before(async () => {
    const stack = await getStack();
    // Sites created through this API fire every second.
    fast = await startExtraApi({ config: { ...stack.config, siteScheduleOverrideMs: 1000 } });
    local = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  });
  after(async () => {
    await stopExtraApi(fast);
    await local.close();
  });

  it('refuses render "all" below team with tier_required and stores nothing, on creation and on a change', async () => {
    const pro = await newAccount('pro');
    const { db } = await getStack();
    for (const key of [pro.testKey, pro.liveKey]) {
      const refused = await api('POST', '/v1/sites', {
        key,
        body: { domain: 'https://render-refused.example.com', schedule: 'daily', render: 'all' },
      });
      assertEnvelope(refused, 403, 'tier_required', /render: "all".*team tier or higher; this account is on pro$/);
    }
    assert.equal((await db('sites').where({ account_id: pro.accountId })).length, 0);

    // The default is open to pro (the control), and shows in the site JSON.
    const created = await api('POST', '/v1/sites', {
      key: pro.testKey,
      body: { domain: 'https://render-refused.example.com', schedule: 'daily', render: 'sample' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.render, 'sample');
    const siteId = created.body.site_id;
    const before = await db('sites').where({ id: siteId }).first();
    const patch = (body: object) => api('PATCH', `/v1/sites/${siteId}`, { key: pro.testKey, body });
    assertEnvelope(await patch({ render: 'all', paused: true }), 403, 'tier_required', /render: "all"/);
    const after = await db('sites').where({ id: siteId }).first();
    assert.deepEqual(
      [after.render, after.paused, after.revision],
      [before.render, before.paused, before.revision],
      'nothing of the refused change is stored',
    );
    assertEnvelope(await patch({ render: 'every' }), 400, 'invalid_request', /render/);
  });

  it('keeps render "all" on a team site and starts its runs by hand with it, and with the change after a PATCH', async () => {
    const team = await newAccount('team');
    const created = await api('POST', '/v1/sites', {
      key: team.liveKey,
      body: { domain: local.origin, schedule: 'monthly', render: 'all' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.render, 'all');
    const siteId = created.body.site_id;
    assert.equal((await api('GET', `/v1/sites/${siteId}`, { key: team.liveKey })).body.render, 'all');
    const listed = await api('GET', '/v1/sites', { key: team.liveKey });
    assert.deepEqual(
      listed.body.data.map((s: { render: string }) => s.render),
      ['all'],
    );

    await triggerByHand(siteId);
    const first = await nextRun(siteId, 0);
    assert.equal(first.outcome, 'started', JSON.stringify(first));
    assert.equal(await auditRender(first.audit_id), 'all');

    const changed = await api('PATCH', `/v1/sites/${siteId}`, { key: team.liveKey, body: { render: 'sample' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.render, 'sample');
    assert.equal(changed.body.schedule, 'monthly', 'fields left out keep their values');
    // A schedule's firings are named to the second (Temporal's workflow id, our run's scheduled_at):
    // a second trigger within the first one's second is the same firing (README "Monitoring").
    await nextSecond();
    await triggerByHand(siteId);
    const second = await nextRun(siteId, 1);
    assert.equal(second.outcome, 'started', JSON.stringify(second));
    assert.equal(await auditRender(second.audit_id), 'sample');
  });

  it('starts scheduled runs with render "all", and skips them as tier_required once the account is below team', async () => {
    const team = await newAccount('team');
    const created = await api('POST', '/v1/sites', {
      key: team.testKey,
      body: { domain: 'https://render-scheduled.example.com', schedule: 'daily', render: 'all' },
      baseUrl: fast!.url,
    });
    assert.equal(created.status, 201, created.text);
    const siteId = created.body.site_id;
    const scheduled = await nextRun(siteId, 0);
    assert.equal(scheduled.outcome, 'started', JSON.stringify(scheduled));
    assert.equal(await auditRender(scheduled.audit_id), 'all');

    // Each run is gated again by the trigger: the site keeps its setting, the firing is refused.
    const down = await admin('account', 'set-tier', '--account', team.accountId, '--tier', 'pro', '--json');
    assert.equal(down.code, 0, down.stderr);
    const skipped = await until(
      async () => (await runs(siteId)).find((r) => r.outcome === 'skipped'),
      20_000,
      'a skipped run',
    );
    assert.equal(skipped.skip_reason, 'tier_required');
    const site = await api('GET', `/v1/sites/${siteId}`, { key: team.testKey });
    assert.equal(site.body.render, 'all');
    await api('DELETE', `/v1/sites/${siteId}`, { key: team.testKey, baseUrl: fast!.url });
  });
});
