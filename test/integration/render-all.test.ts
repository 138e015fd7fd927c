import assert from 'node:assert/strict';
import type { RunningApi } from '../../processes/api-service';
import { assertValidAuditJson } from '../../src/audits/validate-audit';
import { crawlWorkflowId } from '../../workflows/contracts';
import { ensureChromium } from '../support/chromium';
import {
  ALT_BY_SCRIPT,
  CLEAR,
  FADED,
  NO_ALT,
  SCRIPTED,
  serveRenderAllSite,
  TOPICS,
  type RenderAllSite,
} from '../support/render-all-site';
import {
  api,
  getStack,
  newAccount,
  startExtraApi,
  stopExtraApi,
  waitForAudit,
  type ApiResponse,
} from '../support/stack';

interface Finding {
  id: string;
  analyzer: string;
  urls: string[];
  count: number;
  evidence: string;
  message: string;
}
interface Analyzer {
  code: string;
  status: string;
  score: number;
}

/** Every HTML page of the fixture site: the home page, the topics and the five archive pages. */
const ALL_PAGES = ['/', ...TOPICS, FADED, CLEAR, SCRIPTED, ALT_BY_SCRIPT, NO_ALT].sort();

/**
 * `render: "all"` (docs/analyzers.md, "Browser stage"): a team audit renders every crawled HTML page
 * on the browser worker (a real Chromium), crawls the links that only rendering shows, and judges the
 * rendered-DOM checks on every page, so low contrast on a page that no sample takes is found and
 * named. The same site audited with the default (`sample`) renders only the sample: that page is
 * never rendered, and the link only its script adds is never crawled.
 */
describe('render: "all"', function () {
  this.timeout(900_000);
  let instance: RunningApi | undefined;
  let browserQueue: string;
  const sites: RenderAllSite[] = [];
  type Audited = { site: RenderAllSite; done: ApiResponse; key: string };
  let audits: Record<'all' | 'sample', Promise<Audited>>;

  before(async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    const stack = await getStack();
    browserQueue = `${stack.config.taskQueue}-browser`;
    instance = await startExtraApi({
      config: { ...stack.config, browserStage: { taskQueue: browserQueue, timeoutMs: 10 * 60_000 } },
    });
    // Both audits run at once (each on a site of its own): one's crawl and analysis overlap the other's renders.
    audits = { all: audit('all'), sample: audit('sample') };
    for (const running of Object.values(audits)) running.catch(() => undefined); // awaited by its test
  });
  after(async () => {
    await stopExtraApi(instance);
    for (const site of sites) await site.close();
  });

  async function audit(render: 'all' | 'sample'): Promise<Audited> {
    const site = await serveRenderAllSite();
    sites.push(site);
    // The control is a free audit (a sample of the home page): the default, on a tier that could not
    // ask for more, and the fewest Lighthouse runs beside the team audit's on the one browser worker.
    const account = await newAccount(render === 'all' ? 'team' : 'free');
    const body = render === 'all' ? { domain: site.origin, render } : { domain: site.origin };
    const accepted = await api('POST', '/v1/audits', { key: account.liveKey, body, baseUrl: instance!.url });
    assert.equal(accepted.status, 202, accepted.text);
    const done = await waitForAudit(account.liveKey, accepted.body.audit_id, 600_000);
    assert.equal(done.body.status, 'completed', done.text);
    assertValidAuditJson(done.body);
    return { site, done, key: account.liveKey };
  }

  /** The pages the audit's crawl had rendered on the browser queue, by activity type. */
  async function renderedByCrawl(done: ApiResponse, site: RenderAllSite): Promise<Map<string, string[]>> {
    const stack = await getStack();
    const row = await stack.db('audits').where({ id: done.body.audit_id }).first('run_generation');
    const id = crawlWorkflowId(done.body.audit_id, row.run_generation, 1);
    const history = await stack.service.temporal.client.workflow.getHandle(id).fetchHistory();
    const byType = new Map<string, string[]>();
    for (const e of history.events ?? []) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.taskQueue?.name !== browserQueue) continue;
      const { urls } = JSON.parse(Buffer.from(a.input!.payloads![0]!.data!).toString()) as { urls: string[] };
      const type = a.activityType!.name!;
      byType.set(type, [...(byType.get(type) ?? []), ...urls.map((u) => u.slice(site.origin.length))]);
    }
    return byType;
  }

  const path = (site: RenderAllSite) => (url: string) => url.slice(site.origin.length);
  const analyzer = (done: ApiResponse, code: string): Analyzer =>
    (done.body.analyzers as Analyzer[]).find((a) => a.code === code)!;
  const findings = (done: ApiResponse, code: string): Finding[] =>
    (done.body.findings as Finding[]).filter((f) => f.analyzer === code);
  const browserRequested = (site: RenderAllSite, page: string) =>
    site.requests.some((r) => r.path === page && r.agent !== 'DomainAuditBot');

  it('refuses render "all" below team with tier_required, and a value it does not know', async () => {
    for (const tier of ['free', 'pro'] as const) {
      const account = await newAccount(tier);
      const refused = await api('POST', '/v1/audits', {
        key: account.liveKey,
        body: { domain: 'https://example.com', render: 'all' },
      });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.error.code, 'tier_required');
      assert.match(refused.body.error.message, /render: "all".*team tier/);
      // The default is open to every tier (the control); test keys are gated alike.
      const test = await api('POST', '/v1/audits', {
        key: account.testKey,
        body: { domain: 'https://example.com', render: 'all' },
      });
      assert.equal(test.status, 403, test.text);
      const sample = await api('POST', '/v1/audits', {
        key: account.testKey,
        body: { domain: 'https://example.com', render: 'sample' },
      });
      assert.equal(sample.status, 202, sample.text);
    }
    const team = await newAccount('team');
    const accepted = await api('POST', '/v1/audits', {
      key: team.testKey,
      body: { domain: 'https://example.com', render: 'all' },
    });
    assert.equal(accepted.status, 202, accepted.text);
    const unknown = await api('POST', '/v1/audits', {
      key: team.testKey,
      body: { domain: 'https://example.com', render: 'every' },
    });
    assert.equal(unknown.status, 400, unknown.text);
    const stack = await getStack();
    const row = await stack.db('audits').where({ id: accepted.body.audit_id }).first('render');
    assert.equal(row.render, 'all');
  });

  it('renders every page: contrast found and named on a page outside the sample, not on its control', async () => {
    const { site, done, key } = await audits.all;
    const at = path(site);
    const sample = (done.body.browser.pages as { url: string }[]).map((p) => at(p.url));
    assert.equal(sample.length, 10, 'a team audit samples ten pages');
    for (const outside of [FADED, CLEAR, SCRIPTED, ALT_BY_SCRIPT, NO_ALT])
      assert.ok(!sample.includes(outside), outside);

    // Every HTML page went to the browser queue with its checks, the one only a script links to as well.
    const rendered = await renderedByCrawl(done, site);
    assert.deepEqual([...(rendered.get('renderCrawledPages') ?? [])].sort(), ALL_PAGES);
    assert.equal(rendered.get('renderShellPages'), undefined);
    const crawled = new Map(
      (done.body.crawl.pages as { url: string; depth: number }[]).map((p) => [at(p.url), p.depth]),
    );
    assert.equal(crawled.get(SCRIPTED), 2, 'linked from /topics/2 (depth 1) once its script ran');

    const contrast = analyzer(done, 'A11Y_COLOR_CONTRAST');
    assert.equal(contrast.status, 'fail');
    assert.equal(contrast.score, Math.round(((ALL_PAGES.length - 1) / ALL_PAGES.length) * 10_000) / 10_000);
    const [faded, ...others] = findings(done, 'A11Y_COLOR_CONTRAST');
    assert.deepEqual(others, []);
    assert.deepEqual(faded!.urls.map(at), [FADED], 'the control page with dark text is not named');
    assert.equal(faded!.count, 1);
    assert.match(faded!.evidence, /^<p class="faded"/);
    assert.match(faded!.message, /contrasts 1\.\d+:1/);
    // Its URL is stored with the audit's facts, as every finding's are (the finding's URL listing).
    const listed = await api('GET', `/v1/audits/${done.body.audit_id}/findings/${faded!.id}/urls`, { key });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.body.data as { url: string; depth: number }[]).map((u) => [at(u.url), u.depth]),
      [[FADED, 2]],
    );

    // The script's exception is seen on the one page that throws; the browser's own favicon request is no page's error.
    const errors = findings(done, 'BP_CONSOLE_ERRORS');
    assert.deepEqual(
      errors.flatMap((f) => f.urls.map(at)),
      [SCRIPTED],
    );
    assert.match(errors[0]!.evidence, /the scripted archive failed/);
    assert.equal(analyzer(done, 'A11Y_TARGET_SIZE').status, 'pass');
    assert.equal(analyzer(done, 'A11Y_LINK_IN_TEXT_BLOCK').status, 'pass');
    assert.ok(browserRequested(site, FADED));

    // Names are judged on the rendered pages: the alt a script adds counts, the name it removes is missed.
    assert.deepEqual(
      findings(done, 'A11Y_IMG_ALT_MISSING').flatMap((f) => f.urls.map(at)),
      [NO_ALT],
    );
    assert.equal(analyzer(done, 'A11Y_IMG_ALT_MISSING').score, 0.5, 'two pages have a photo, one names it');
    assert.deepEqual(
      findings(done, 'A11Y_CONTROL_NAME_MISSING').map((f) => [f.urls.map(at), f.evidence]),
      [[[ALT_BY_SCRIPT], '<button id="menu">']],
    );
    // Lab metrics stay on the sample.
    assert.equal(done.body.browser.performance_basis, 'lab');
  });

  it('with the default, renders only the sample: the faded page is never rendered, nor the scripted link crawled', async () => {
    const { site, done } = await audits.sample;
    const at = path(site);
    const rendered = await renderedByCrawl(done, site);
    assert.deepEqual([...rendered.keys()], [], 'the crawl rendered nothing: no page is an application shell');
    assert.ok(!browserRequested(site, FADED), 'no browser asked for the faded page');
    assert.ok(
      site.requests.some((r) => r.path === FADED && r.agent === 'DomainAuditBot'),
      'crawled all the same',
    );
    const crawled = (done.body.crawl.pages as { url: string }[]).map((p) => at(p.url));
    assert.ok(!crawled.includes(SCRIPTED));
    assert.deepEqual(
      crawled.sort(),
      ALL_PAGES.filter((p) => p !== SCRIPTED),
    );
    const named = findings(done, 'A11Y_COLOR_CONTRAST').flatMap((f) => f.urls.map(at));
    assert.ok(!named.includes(FADED));
    assert.equal(analyzer(done, 'A11Y_COLOR_CONTRAST').status, 'pass');
    // The control: read from the HTML, both photos lack an alt and the button has its name. The two
    // pages are as deep, so their order is the order their fetches ended in.
    assert.deepEqual(
      findings(done, 'A11Y_IMG_ALT_MISSING')
        .flatMap((f) => f.urls.map(at))
        .sort(),
      [ALT_BY_SCRIPT, NO_ALT].sort(),
    );
    assert.deepEqual(findings(done, 'A11Y_CONTROL_NAME_MISSING'), []);
  });
});
