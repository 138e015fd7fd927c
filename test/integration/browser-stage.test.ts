import assert from 'node:assert/strict';
import { assertValidAuditJson } from '../../src/audits/validate-audit';
import { loadStageResult } from '../../src/browser/store';
import { serveBrowserSite, type BrowserFixtureSite } from '../support/browser-sites';
import { ensureChromium } from '../support/chromium';
import {
  api,
  auditUntilEnded,
  getStack,
  newAccount,
  startExtraApi,
  stopExtraApi,
  waitForAudit,
} from '../support/stack';
import type { RunningApi } from '../../processes/api-service';

interface BrowserPageJson {
  url: string;
  status: 'measured' | 'unrenderable';
  lcp_ms?: number;
  cls?: number;
  reason?: string;
}

/**
 * Live audits with the browser stage: the stack's browser worker renders the sample while the audit
 * worker crawls and analyses, and the audit completes with the merged result. The shared stack runs
 * with BROWSER_STAGE=off, so these tests trigger through an API of their own that turns it on.
 */
describe('browser stage in live audits', function () {
  this.timeout(600_000);
  let site: BrowserFixtureSite;
  const apis: RunningApi[] = [];

  before(async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    site = await serveBrowserSite();
  });
  after(async () => {
    for (const instance of apis) await stopExtraApi(instance);
    await site?.close();
  });

  async function apiWithStage(taskQueue: string, timeoutMs: number): Promise<RunningApi> {
    const stack = await getStack();
    const instance = await startExtraApi({ config: { ...stack.config, browserStage: { taskQueue, timeoutMs } } });
    apis.push(instance);
    return instance;
  }

  it('a pro audit renders the home page and the most-linked pages on the browser worker; the audit JSON carries them', async () => {
    const stack = await getStack();
    const instance = await apiWithStage(`${stack.config.taskQueue}-browser`, 10 * 60_000);
    const account = await newAccount('pro');
    const done = await auditUntilEnded(account.liveKey, site.origin, { baseUrl: instance.url, timeoutMs: 480_000 });
    assert.equal(done.body.status, 'completed', done.text);
    const auditId: string = done.body.audit_id;
    assertValidAuditJson(done.body);
    // Completed once the stage's result was merged, not when the crawl's analysis ended: JSON and row agree.
    const row = await stack.db('audits').where({ id: auditId }).first('completed_at');
    assert.equal(done.body.completed_at, row.completed_at.toISOString());

    const pages: BrowserPageJson[] = done.body.browser!.pages;
    // Home first, then the pages linked from it (all once; ties by URL), never-renders unrenderable.
    assert.deepEqual(
      pages.map((p) => [p.url.slice(site.origin.length), p.status]),
      [
        ['/', 'measured'],
        ['/never-renders', 'unrenderable'],
        ['/shifts', 'measured'],
        ['/slow-hero', 'measured'],
      ],
    );
    assert.ok(pages[1].reason && pages[1].reason.length > 10, JSON.stringify(pages[1]));
    assert.ok(pages[2].cls! > 0.25, `CLS ${pages[2].cls}`);
    assert.ok(pages[3].lcp_ms! > 4000, `LCP ${pages[3].lcp_ms}`);
    assert.equal(done.body.browser!.performance_basis, 'lab');
    const analyzers = new Map(done.body.analyzers.map((a: { code: string; status: string }) => [a.code, a.status]));
    assert.equal(analyzers.get('PERF_LCP_SLOW'), 'fail');
    assert.equal(analyzers.get('PERF_CLS_HIGH'), 'fail');
    assert.ok(done.body.findings.some((f: { analyzer: string }) => f.analyzer === 'PERF_LCP_SLOW'));

    // The stage ran on the browser worker's queue in two steps, the sample handed over by the workflow
    // once the run had returned it; its raw result is kept beside the audit.
    const history = await stack.service.temporal.client.workflow.getHandle(auditId).fetchHistory();
    const scheduled = (history.events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.taskQueue?.name === `${stack.config.taskQueue}-browser`);
    assert.deepEqual(
      scheduled.map((a) => a!.activityType?.name),
      ['renderHomePage', 'renderSampledPages'],
    );
    const handedSample = JSON.parse(Buffer.from(scheduled[1]!.input!.payloads![0].data!).toString()).sample;
    assert.deepEqual(
      handedSample.map((url: string) => url.slice(site.origin.length)),
      ['/', '/never-renders', '/shifts', '/slow-hero'],
    );
    const raw = await loadStageResult(stack.db, { auditId, attempt: 1 });
    assert.equal(raw?.pages.length, 4);
    const pending = await stack.db('audit_browser_stages').where({ audit_id: auditId }).first('pending_audit_json');
    assert.equal(pending.pending_audit_json, null, 'the waiting audit JSON is cleared once completed');
  });

  it('with no browser worker polling, the audit waits at most the bound, then completes scored from diagnostics', async () => {
    const instance = await apiWithStage('browser-stage-nobody-polls', 3000);
    const account = await newAccount('pro');
    const accepted = await api('POST', '/v1/audits', {
      key: account.liveKey,
      body: { domain: site.origin },
      baseUrl: instance.url,
    });
    assert.equal(accepted.status, 202, accepted.text);
    const done = await waitForAudit(account.liveKey, accepted.body.audit_id, 120_000);
    assert.equal(done.body.status, 'completed', done.text);
    assertValidAuditJson(done.body);
    assert.equal(done.body.browser!.performance_basis, 'diagnostics');
    assert.deepEqual(done.body.browser!.pages, []);
  });
});
