import assert from 'node:assert/strict';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { ClosableConnection } from '../../temporal/closable-connection';
import { recordPendingStart } from '../../src/audits/pending-starts';
import { reconcilePendingStarts } from '../../src/audits/reconciler';
import { newLiveAuditId } from '../../src/ids';
import { siteOfUrl } from '../../src/registrable-domain';
import { TemporalAuditScheduler } from '../../temporal/audit-scheduler';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';
import { closedPort, serveSite, type LocalSite } from '../support/sites';

const HOME =
  '<!doctype html><html lang="en"><head><title>Reconciled audits</title></head><body><h1>Hi</h1></body></html>';

describe('reconciler: owed workflow starts (README "Reliability")', function () {
  this.timeout(60_000);
  let site: LocalSite;
  before(async () => {
    site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  });
  after(() => site.close());

  /** What a trigger that crashed right after its commit leaves: the audit, charged, and its start owed (claim lapsed). */
  async function commitWithoutStart(
    account: TestAccount,
    domain: string,
    opts: { requestedAgoMs?: number } = {},
  ): Promise<string> {
    const { db } = await getStack();
    const id = newLiveAuditId();
    await db.transaction(async (trx) => {
      await trx('audits').insert({
        id,
        workspace_id: account.workspaceId,
        account_id: account.accountId,
        mode: 'live',
        domain,
        site_key: siteOfUrl(domain),
        tier: 'pro',
        status: 'queued',
        charged: true,
        created_at: new Date(),
        updated_at: new Date(),
      });
      await recordPendingStart(trx, id);
      await trx('pending_audit_starts')
        .where({ audit_id: id })
        .update({
          claimed_until: null,
          requested_at: trx.raw(`now() - ? * interval '1 millisecond'`, [opts.requestedAgoMs ?? 0]),
        });
    });
    return id;
  }

  const owed = async (auditId: string) =>
    (await (await getStack()).db('pending_audit_starts').where({ audit_id: auditId })).length === 1;

  // Any API of the run may make this start: only those on the shared task queue reconcile (an extra API
  // on a queue of its own once made it there, where nobody polled; test/support/stack.ts).
  it("starts what a crashed trigger left owed: the service's own reconciler runs it to completion", async () => {
    const { service } = await getStack();
    const account = await newAccount('pro');
    const auditId = await commitWithoutStart(account, site.origin);
    await assert.rejects(service.temporal.client.workflow.getHandle(auditId).describe(), WorkflowNotFoundError);
    const done = await waitForAudit(account.liveKey, auditId, 40_000).catch(async (err: Error) => {
      // Say where it stuck: still owed (and claimed until when), or started but not run.
      const pending = await (await getStack()).db('pending_audit_starts').where({ audit_id: auditId }).first();
      const workflow = await service.temporal.client.workflow
        .getHandle(auditId)
        .describe()
        .then((d) => `${d.status.name} on task queue ${d.taskQueue}`)
        .catch((e: Error) => e.name);
      throw new Error(`${err.message}; owed start: ${JSON.stringify(pending ?? null)}; workflow: ${workflow}`);
    });
    assert.equal(done.body.status, 'completed', done.text);
    assert.equal(await owed(auditId), false);
    assert.equal(
      (await api('GET', '/v1/usage', { key: account.testKey })).body.audits_used,
      1,
      'the accepted audit stays charged',
    );
  });

  it('refunds what can never start: refused by Temporal, or still impossible after the give-up age', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    // Right after the service's reconciler has made a pass, so that this test's pass gets to these rows first.
    const sentinel = await commitWithoutStart(account, `http://127.0.0.9:${await closedPort()}`);
    for (const deadline = Date.now() + 30_000; await owed(sentinel);) {
      assert.ok(Date.now() < deadline, 'the service reconciler made the owed start');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const refusedDomain = 'http://127.0.0.3';
    const refused = await commitWithoutStart(account, refusedDomain);
    const longOwed = await commitWithoutStart(account, 'http://127.0.0.4', { requestedAgoMs: 2 * 3600_000 });
    const recentlyOwed = await commitWithoutStart(account, 'http://127.0.0.5', { requestedAgoMs: 60_000 });

    // Temporal answers, but refuses the start for good (here: a namespace that does not exist).
    const wrongNamespace = new TemporalAuditScheduler(
      new Client({ connection: stack.service.temporal.connection, namespace: 'no-such-namespace' }),
      stack.service.temporal.connection,
      stack.config.taskQueue,
    );
    assert.equal(await wrongNamespace.probe(), true);
    const deps = { db: stack.db, config: stack.config, giveUpMs: 3600_000 };
    // Temporal is down (never reached): only starts owed past the give-up age are given up.
    const deadConnection = ClosableConnection.open({ address: `127.0.0.1:${await closedPort()}` });
    const down = new TemporalAuditScheduler(
      new Client({ connection: deadConnection }),
      deadConnection,
      stack.config.taskQueue,
    );
    try {
      const whileDown = await reconcilePendingStarts({ ...deps, scheduler: down });
      assert.deepEqual(whileDown, { started: 0, refunded: 1, postponed: 0 });
      assert.equal(await owed(longOwed), false);
      assert.equal(await owed(recentlyOwed), true, 'not yet given up: it still runs once Temporal is back');
      assert.equal(await owed(refused), true);
      // Temporal refuses every start (the recently owed one too): each is refunded at once.
      const whileRefused = await reconcilePendingStarts({ ...deps, scheduler: wrongNamespace });
      assert.ok(whileRefused.refunded >= 2 && whileRefused.started === 0, JSON.stringify(whileRefused));
    } finally {
      await deadConnection.close().catch(() => undefined);
    }

    for (const auditId of [refused, longOwed, recentlyOwed]) {
      const row = await stack.db('audits').where({ id: auditId }).first();
      assert.deepEqual(
        [row.status, row.charged, row.attempts, row.error_code],
        ['failed', false, 0, 'audit_provider_unavailable'],
        auditId,
      );
      assert.equal(await owed(auditId), false);
      const envelope = await api('GET', `/v1/audits/${auditId}`, { key: account.liveKey });
      assert.equal(envelope.body.status, 'failed');
      assert.match(envelope.body.error.message, /not charged/);
      assert.doesNotMatch(envelope.body.error.message, /namespace/, 'no internal detail reaches the customer');
    }
    // Refunds give the quota back, and a site whose audit never ran still has its free first audit.
    const usage = await api('GET', '/v1/usage', { key: account.testKey });
    assert.equal(usage.body.audits_used, 1, 'only the audit that ran stays charged');
    const again = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: refusedDomain } });
    assert.equal(again.status, 202, again.text);
    assert.equal((await stack.db('audits').where({ id: again.body.audit_id }).first('charged')).charged, false);
  });
});
