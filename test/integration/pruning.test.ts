import assert from 'node:assert/strict';
import { PRUNE_SCHEDULE_ID } from '../../workflows/contracts';
import { FileReportStorage } from '../../src/reports/file-storage';
import { api, getStack, newAccount, seedLiveAudits } from '../support/stack';

describe('free-tier pruning (Temporal Schedule)', function () {
  this.timeout(60_000);

  it('is a schedule operators can see, and deletes free audits older than 24 months, then audit_not_found', async () => {
    const { db, service, config } = await getStack();
    const free = await newAccount('free');
    const pro = await newAccount('pro');
    const old = new Date();
    old.setUTCMonth(old.getUTCMonth() - 25);
    const recent = new Date();
    recent.setUTCMonth(recent.getUTCMonth() - 23);
    await seedLiveAudits(free, 1, { createdAt: old, domain: 'https://old.example.com' });
    await seedLiveAudits(free, 1, { createdAt: recent, domain: 'https://recent.example.com' });
    await seedLiveAudits(pro, 1, { createdAt: old, domain: 'https://old.example.com' });
    const ids = async (accountId: string) =>
      (await db('audits').where({ account_id: accountId }).orderBy('created_at')).map((r) => r.id as string);
    const [freeOld, freeRecent] = await ids(free.accountId);
    const [proOld] = await ids(pro.accountId);
    // The account was on pro when this report was rendered: its file goes with the audit.
    const storage = new FileReportStorage(config.reportsDir);
    const reportKey = `${free.workspaceId}/${freeOld}/r0-prunetest.pdf`;
    await storage.put(reportKey, Buffer.from('%PDF-1.3 pruned'));
    await db('audit_reports').insert({
      audit_id: freeOld,
      branding_revision: 0,
      audit_completed_at: old,
      storage_key: reportKey,
      byte_size: 15,
      sha256: 'x',
      render_ms: 1,
      rendered_at: old,
    });
    // A signing key retired more than a link lifetime ago verifies nothing any more.
    await db('report_signing_keys').insert({
      id: 'rsk_PruneTestRetired0',
      secret: Buffer.alloc(32),
      created_at: old,
      retired_at: old,
    });
    // A crawl whose attempt was terminated 4 days ago left its working state; a running one's stays.
    const crawlRun = (crawlId: string, createdAt: Date) => ({
      crawl_id: crawlId,
      audit_id: freeRecent,
      origin: 'https://recent.example.com',
      page_budget: 100,
      robots: '{"kind":"unreachable","url":"https://recent.example.com/robots.txt","error":"x"}',
      observed_at: createdAt,
      created_at: createdAt,
    });
    await db('crawl_runs').insert([
      crawlRun('prune-test/abandoned', new Date(Date.now() - 4 * 24 * 3600_000)),
      crawlRun('prune-test/running', new Date()),
    ]);
    await db('crawl_frontier').insert({
      crawl_id: 'prune-test/abandoned',
      url: 'https://recent.example.com/',
      state: 'queued',
      depth: 0,
      alias_key: 'https://recent.example.com/',
    });
    // Served (and cached) before the prune.
    assert.equal((await api('GET', `/v1/audits/${freeOld}`, { key: free.liveKey })).status, 200);

    const schedule = service.temporal.client.schedule.getHandle(PRUNE_SCHEDULE_ID);
    const description = await schedule.describe();
    assert.equal(description.action.type, 'startWorkflow');
    const before = description.info.recentActions.length;
    await schedule.trigger();
    const deadline = Date.now() + 30_000;
    while ((await db('audits').where({ id: freeOld }).first('id')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(await ids(free.accountId), [freeRecent]);
    assert.equal(await storage.open(reportKey), null, 'the report file is deleted with its audit');
    assert.equal(await db('audit_reports').where({ audit_id: freeOld }).first(), undefined);
    let key = await db('report_signing_keys').where({ id: 'rsk_PruneTestRetired0' }).first();
    for (const until = Date.now() + 5000; key && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      key = await db('report_signing_keys').where({ id: 'rsk_PruneTestRetired0' }).first();
    }
    assert.equal(key, undefined, 'retired signing key pruned');
    assert.deepEqual(await ids(pro.accountId), [proOld]);
    const crawlIds = () => db('crawl_runs').where('crawl_id', 'like', 'prune-test/%').pluck('crawl_id');
    let crawls = await crawlIds();
    for (const until = Date.now() + 5000; crawls.length > 1 && Date.now() < until; crawls = await crawlIds())
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(crawls, ['prune-test/running'], 'an abandoned crawl is dropped, a running one kept');
    assert.equal(await db('crawl_frontier').where({ crawl_id: 'prune-test/abandoned' }).first(), undefined);
    await db('crawl_runs').where({ crawl_id: 'prune-test/running' }).delete();
    // The API drops its cached copy on the prune's NOTIFY (milliseconds): allow up to a second.
    let gone = await api('GET', `/v1/audits/${freeOld}`, { key: free.liveKey });
    for (const until = Date.now() + 1000; gone.status !== 404 && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      gone = await api('GET', `/v1/audits/${freeOld}`, { key: free.liveKey });
    }
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'audit_not_found');
    assert.ok((await schedule.describe()).info.recentActions.length > before);
  });
});
