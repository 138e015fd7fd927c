import assert from 'node:assert/strict';
import { startBrowserWorker } from '../../processes/browser-worker';
import { ensureChromium } from '../support/chromium';
import { serveSite, type LocalSite } from '../support/sites';
import { api, getStack, newAccount, startExtraApi, stopExtraApi, waitForAudit, workflowBundle } from '../support/stack';

const BROWSER_ACTIVITIES = new Set(['renderHomePage', 'renderSampledPages', 'runBrowserStage']);
// Temporal's PendingActivityState: SCHEDULED 1, STARTED 2.
const SCHEDULED = 1;
const STARTED = 2;

/**
 * Browser work waits in Temporal's task queue (docs/architecture.md, "The flow of an audit"): a
 * browser worker takes only as many browser tasks as it renders at once, and audits triggered
 * together are rendered first come, first served.
 */
describe('browser stage: work waits in the task queue', function () {
  this.timeout(300_000);

  it('a worker rendering one page at a time takes one browser task at a time; audits complete in the order their browser work was queued', async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    const stack = await getStack();
    const taskQueue = `${stack.config.taskQueue}-browser-fifo`;
    const config = { ...stack.config, browserConcurrency: 1, browserStage: { taskQueue, timeoutMs: 240_000 } };
    const worker = await startBrowserWorker({
      config,
      db: stack.db,
      temporalAddress: stack.temporalAddress,
      workflowBundle: await workflowBundle(),
    });
    const instance = await startExtraApi({ config });
    const sites: LocalSite[] = [];
    try {
      for (let i = 0; i < 3; i++)
        sites.push(
          await serveSite({
            '/robots.txt': { body: '' },
            '/': { body: `<!doctype html><html lang="en"><title>Queued site ${i}</title><h1>Site ${i}</h1></html>` },
          }),
        );
      const account = await newAccount('pro');
      const auditIds: string[] = [];
      for (const site of sites) {
        const accepted = await api('POST', '/v1/audits', {
          key: account.liveKey,
          body: { domain: site.origin },
          baseUrl: instance.url,
        });
        assert.equal(accepted.status, 202, accepted.text);
        auditIds.push(accepted.body.audit_id);
      }

      // Every 100 ms until all have ended: browser tasks started (taken by the worker) and waiting.
      let mostStarted = 0;
      let mostWaiting = 0;
      const { client } = stack.service.temporal;
      for (const deadline = Date.now() + 240_000; Date.now() < deadline;) {
        const states = await Promise.all(
          auditIds.map(async (id) => (await client.workflow.getHandle(id).describe()).raw.pendingActivities ?? []),
        );
        const browser = states.flat().filter((a) => BROWSER_ACTIVITIES.has(a.activityType?.name ?? ''));
        mostStarted = Math.max(mostStarted, browser.filter((a) => a.state === STARTED).length);
        mostWaiting = Math.max(mostWaiting, browser.filter((a) => a.state === SCHEDULED).length);
        const ended = await stack.db('audits').whereIn('id', auditIds).whereIn('status', ['completed', 'failed']);
        if (ended.length === auditIds.length) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(mostStarted, 1, 'one browser task taken at a time');
      assert.ok(mostWaiting >= 2, `the others waited in the queue (at most ${mostWaiting} at once)`);

      const done = await Promise.all(auditIds.map((id) => waitForAudit(account.liveKey, id)));
      for (const audit of done) {
        assert.equal(audit.body.status, 'completed', audit.text);
        assert.equal(audit.body.browser.performance_basis, 'lab', 'rendered, not timed out');
      }
      // First come, first served: the one worker started the samples' renders in the order they were
      // queued. (Not the audits' completion order: what follows a render, the analysis merge and the
      // projections, may take longer for one audit than the next render on a loaded machine.)
      const renders = await Promise.all(
        auditIds.map(async (id) => {
          const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
          const queued = events.find(
            (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'renderSampledPages',
          );
          assert.ok(queued?.eventTime, `${id} queued its sample's render`);
          const started = events.find(
            (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(queued.eventId),
          );
          assert.ok(started?.eventTime, `${id} started its sample's render`);
          return { queuedAt: millis(queued.eventTime), startedAt: millis(started.eventTime) };
        }),
      );
      const byQueue = auditIds.map((_, i) => i).sort((a, b) => renders[a]!.queuedAt - renders[b]!.queuedAt);
      const byStart = auditIds.map((_, i) => i).sort((a, b) => renders[a]!.startedAt - renders[b]!.startedAt);
      assert.deepEqual(byStart, byQueue, 'the renders started in the order they were queued');
    } finally {
      await stopExtraApi(instance);
      await worker.shutdown();
      for (const site of sites) await site.close();
    }
  });
});

function millis(time: { seconds?: unknown; nanos?: number | null }): number {
  return Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}
