import assert from 'node:assert/strict';
import type { RunningApi } from '../../processes/api-service';
import { assertValidAuditJson } from '../../src/audits/validate-audit';
import { crawlWorkflowId } from '../../workflows/contracts';
import { CLIENT_ROUTES, serveRenderFixture, type RenderFixtureSite } from '../support/client-rendered-sites';
import { ensureChromium } from '../support/chromium';
import { auditUntilEnded, getStack, newAccount, startExtraApi, stopExtraApi, type ApiResponse } from '../support/stack';

interface AuditPage {
  url: string;
  depth: number | null;
}
interface Finding {
  analyzer: string;
  severity: string;
  urls: string[];
  evidence: string;
}

/** The activities the audit's crawl scheduled on the browser task queue, over every run of it. */
async function browserActivities(done: ApiResponse, taskQueue: string): Promise<{ type: string; urls: string[] }[]> {
  const stack = await getStack();
  const row = await stack.db('audits').where({ id: done.body.audit_id }).first('run_generation');
  const id = crawlWorkflowId(done.body.audit_id, row.run_generation, 1);
  const history = await stack.service.temporal.client.workflow.getHandle(id).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.taskQueue?.name === taskQueue)
    .map((a) => ({
      type: a!.activityType!.name!,
      urls: JSON.parse(Buffer.from(a!.input!.payloads![0]!.data!).toString()).urls as string[],
    }));
}

/**
 * Rendering where it is needed (docs/analyzers.md): with the browser stage, a live audit renders the
 * application shells it crawls on the browser worker (a real Chromium), crawls the pages their
 * rendered links reveal, and reports SEO_CONTENT_NEEDS_JS with the counts of each page.
 */
describe('application shells rendered during the crawl', function () {
  this.timeout(600_000);
  let instance: RunningApi | undefined;
  let browserQueue: string;
  const sites: RenderFixtureSite[] = [];

  before(async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    const stack = await getStack();
    browserQueue = `${stack.config.taskQueue}-browser`;
    instance = await startExtraApi({
      config: { ...stack.config, browserStage: { taskQueue: browserQueue, timeoutMs: 10 * 60_000 } },
    });
  });
  after(async () => {
    await stopExtraApi(instance);
    for (const site of sites) await site.close();
  });

  async function audit(
    kind: 'client' | 'server',
    api: RunningApi = instance!,
  ): Promise<{ site: RenderFixtureSite; done: ApiResponse }> {
    const site = await serveRenderFixture(kind);
    sites.push(site);
    // Free: the browser stage's sample is the home page alone, so the audit spends its time on the crawl.
    const account = await newAccount('free');
    const done = await auditUntilEnded(account.liveKey, site.origin, { baseUrl: api.url, timeoutMs: 480_000 });
    assert.equal(done.body.status, 'completed', done.text);
    assertValidAuditJson(done.body);
    return { site, done };
  }

  it('crawls a client-rendered site through its rendered links and reports SEO_CONTENT_NEEDS_JS with exact counts', async () => {
    const { site, done } = await audit('client');
    const path = (url: string) => url.slice(site.origin.length);
    const pages = (done.body.crawl.pages as AuditPage[]).map((p) => [path(p.url), p.depth]);
    assert.deepEqual(
      pages.sort((a, b) => (a[1] as number) - (b[1] as number) || String(a[0]).localeCompare(String(b[0]))),
      [
        ['/', 0],
        ['/about', 1],
        ['/products', 1],
        ['/products/one', 2],
        ['/thanks', 2],
        ['/stuck', 3],
      ],
    );
    // The crawler asked for the pages only the rendered DOM links to.
    const crawled = site.requests.filter((r) => r.agent === 'DomainAuditBot').map((r) => r.path);
    for (const deep of ['/about', '/products', '/products/one', '/thanks', '/stuck'])
      assert.ok(crawled.includes(deep), deep);

    // Each step's shells rendered on the browser worker's queue, one activity per step that found any.
    const rendered = (await browserActivities(done, browserQueue)).filter((a) => a.type === 'renderShellPages');
    assert.deepEqual(rendered.flatMap((a) => a.urls.map(path)).sort(), [
      '/',
      '/about',
      '/products',
      '/products/one',
      '/stuck',
      '/thanks',
    ]);

    const analyzer = done.body.analyzers.find((a: { code: string }) => a.code === 'SEO_CONTENT_NEEDS_JS');
    assert.equal(analyzer.status, 'fail');
    assert.equal(analyzer.score, 0.2, 'one of five rendered pages (/thanks) passes');
    const findings = (done.body.findings as Finding[]).filter((f) => f.analyzer === 'SEO_CONTENT_NEEDS_JS');
    assert.equal(findings.length, 2);
    assert.deepEqual(findings[0]!.urls.map(path).sort(), ['/', '/about', '/products', '/products/one']);
    // A page that cannot render is reported, never judged, and never fails the audit.
    assert.equal(findings[1]!.severity, 'info');
    assert.deepEqual(findings[1]!.urls.map(path), ['/stuck']);
    const waited = (await getStack()).config.browserRenderTimeoutMs / 1000;
    assert.equal(findings[1]!.evidence, `/stuck: the page did not finish loading in ${waited} s`);
    const expected = Object.entries(CLIENT_ROUTES).map(
      ([route, r]) => `${route}: links 0 → ${r.links.length}, words of main text 0 → ${r.words + 1}`,
    );
    assert.deepEqual(findings[0]!.evidence.split('; ').sort(), expected.sort());
  });

  it('renders nothing on a server-rendered site (the control): the same pages, SEO_CONTENT_NEEDS_JS not applicable', async () => {
    const { site, done } = await audit('server');
    const paths = (done.body.crawl.pages as AuditPage[]).map((p) => p.url.slice(site.origin.length)).sort();
    assert.deepEqual(paths, ['/', '/about', '/products', '/products/one', '/stuck', '/thanks']);
    const rendered = (await browserActivities(done, browserQueue)).filter((a) => a.type === 'renderShellPages');
    assert.deepEqual(rendered, []);
    const analyzer = done.body.analyzers.find((a: { code: string }) => a.code === 'SEO_CONTENT_NEEDS_JS');
    assert.equal(analyzer.status, 'not_applicable');
    assert.ok(!(done.body.findings as Finding[]).some((f) => f.analyzer === 'SEO_CONTENT_NEEDS_JS'));
  });

  it('with no browser worker polling, releases the shells after the bound: the audit completes without them', async () => {
    const stack = await getStack();
    const nobody = 'app-shells-nobody-polls';
    const unpolled = await startExtraApi({
      config: { ...stack.config, browserStage: { taskQueue: nobody, timeoutMs: 3000 } },
    });
    try {
      const { site, done } = await audit('client', unpolled);
      const paths = (done.body.crawl.pages as AuditPage[]).map((p) => p.url.slice(site.origin.length));
      assert.deepEqual(paths, ['/'], 'no rendered link was found to crawl');
      const scheduled = await browserActivities(done, nobody);
      assert.deepEqual(
        scheduled.map((a) => [a.type, a.urls.map((u) => u.slice(site.origin.length))]),
        [['renderShellPages', ['/']]],
      );
      const analyzer = done.body.analyzers.find((a: { code: string }) => a.code === 'SEO_CONTENT_NEEDS_JS');
      assert.equal(analyzer.status, 'not_applicable');
    } finally {
      await stopExtraApi(unpolled);
    }
  });
});
