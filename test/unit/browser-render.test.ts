import assert from 'node:assert/strict';
import { BrowserPool } from '../../src/browser/pool';
import type { BrowserRefusal } from '../../src/browser/proxy';
import type { BrowserPageResult, MeasuredPage, RenderedRuleId } from '../../src/browser/stage-result';
import { parseCidrList } from '../../src/outbound/policy';
import { serveBrowserSite, type BrowserFixtureSite } from '../support/browser-sites';
import { CHROMIUM_PATH, ensureChromium } from '../support/chromium';

/**
 * The browser stage's rendering in Debian's Chromium with Lighthouse, on fixture pages with one
 * defect each (test/support/browser-sites.ts), through the outbound-policy proxy (loopback allowed,
 * as OUTBOUND_ALLOW_CIDRS=127.0.0.0/8 does in tests). Each page is rendered once, then asserted on.
 */
describe('browser stage rendering (Chromium + Lighthouse)', function () {
  this.timeout(600_000);
  const PATHS = [
    '/',
    '/slow-hero',
    '/shifts',
    '/throws',
    '/contrast',
    '/link-colour',
    '/tiny-targets',
    '/ssrf',
    '/never',
  ];
  let site: BrowserFixtureSite;
  let pool: BrowserPool;
  const refusals: BrowserRefusal[] = [];
  const results = new Map<string, BrowserPageResult>();

  before(async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    site = await serveBrowserSite();
    pool = new BrowserPool({
      executablePath: CHROMIUM_PATH,
      size: 2,
      allow: parseCidrList('127.0.0.0/8'),
      onRefused: (entry) => refusals.push(entry),
      // The fixture pages load in milliseconds; /never would hold the browser the default 30 s.
      renderTimeoutMs: 12_000,
    });
    await pool.warm();
    // Two pages at once, one per browser of the pool (the stage renders as many as its pool holds).
    await Promise.all(PATHS.map(async (path) => results.set(path, await pool.render(`${site.origin}${path}`))));
  });

  after(async () => {
    await pool?.close();
    await site?.close();
  });

  const measured = (path: string): MeasuredPage => {
    const result = results.get(path)!;
    assert.equal(result.status, 'measured', `${path}: ${JSON.stringify(result)}`);
    return result as MeasuredPage;
  };
  const rules = (path: string): RenderedRuleId[] => measured(path).violations.map((v) => v.rule);

  it('measures a plain page: all five lab metrics, nothing to report', () => {
    const home = measured('/');
    assert.equal(home.url, `${site.origin}/`);
    for (const value of Object.values(home.metrics)) assert.ok(Number.isFinite(value) && value >= 0);
    assert.ok(home.metrics.fcpMs > 0 && home.metrics.lcpMs >= home.metrics.fcpMs);
    assert.ok(home.metrics.lcpMs < 2500, `LCP ${home.metrics.lcpMs}`);
    assert.ok(home.metrics.cls < 0.1, `CLS ${home.metrics.cls}`);
    assert.deepEqual(home.violations, []);
    assert.ok(home.durationMs > 0);
  });

  it('a heavy hero image: LCP over 4 s under simulated mobile throttling', () => {
    const page = measured('/slow-hero');
    assert.ok(page.metrics.lcpMs > 4000, `LCP ${page.metrics.lcpMs}`);
    assert.ok(page.metrics.fcpMs < 4000, `FCP ${page.metrics.fcpMs}`);
  });

  it('content inserted above the text after the first paint: CLS over 0.25', () => {
    const page = measured('/shifts');
    assert.ok(page.metrics.cls > 0.25, `CLS ${page.metrics.cls}`);
    assert.ok(measured('/contrast').metrics.cls < 0.1);
  });

  it('a throwing script and console.error: both console errors, with the page URL', () => {
    const errors = measured('/throws').consoleErrors;
    const exception = errors.find((e) => e.source === 'exception');
    assert.match(exception?.text ?? '', /fixture exception/);
    assert.equal(exception?.url, `${site.origin}/throws`);
    assert.ok(errors.some((e) => e.source === 'console' && e.text.includes('fixture logged an error')));
    assert.ok(!measured('/contrast').consoleErrors.some((e) => e.source !== 'network'));
  });

  it('low-contrast text: color-contrast on that element only', () => {
    assert.deepEqual(rules('/contrast'), ['color-contrast']);
    const [violation] = measured('/contrast').violations;
    assert.deepEqual(
      violation.nodes.map((n) => n.selector),
      ['body > p#faint'],
    );
    assert.match(violation.nodes[0].html, /^<p id="faint"/);
    assert.match(violation.nodes[0].message, /contrast of 1\.\d+/);
  });

  it('a link told apart by colour only: link-in-text-block', () => {
    assert.deepEqual(rules('/link-colour'), ['link-in-text-block']);
    assert.deepEqual(
      measured('/link-colour').violations[0].nodes.map((n) => n.selector),
      ['body > p > a#colour-link'],
    );
  });

  it('two 10×10 px links side by side: target-size on both', () => {
    assert.deepEqual(rules('/tiny-targets'), ['target-size']);
    const nodes = measured('/tiny-targets').violations[0].nodes;
    assert.equal(nodes.length, 2);
    assert.deepEqual(
      nodes.map((n) => n.html.match(/href="([^"]+)"/)?.[1]),
      ['/a', '/b'],
    );
  });

  it('an image from the metadata address is refused by the proxy, logged, and fails in the page only', () => {
    const page = measured('/ssrf');
    assert.ok(
      refusals.some((r) => r.host === '169.254.169.254' && r.kind === 'blocked_address'),
      JSON.stringify(refusals),
    );
    assert.ok(page.consoleErrors.some((e) => e.url === 'http://169.254.169.254/latest/meta-data/logo.png'));
  });

  it('a page whose server never answers is unrenderable, with the reason', () => {
    const never = results.get('/never')!;
    assert.equal(never.status, 'unrenderable');
    assert.ok(never.status === 'unrenderable' && never.reason.length > 10, JSON.stringify(never));
    // The pool goes on rendering after it.
    assert.equal(site.requests.filter((p) => p === '/never').length >= 1, true);
  });

  it('loopback goes through the proxy too: refused where the policy does not allow it', async () => {
    const strictRefusals: BrowserRefusal[] = [];
    const strict = new BrowserPool({
      executablePath: CHROMIUM_PATH,
      size: 2,
      allow: parseCidrList(undefined),
      onRefused: (entry) => strictRefusals.push(entry),
    });
    try {
      const before = site.requests.length;
      const result = await strict.render(`${site.origin}/contrast`);
      assert.equal(result.status, 'unrenderable', JSON.stringify(result));
      assert.equal(site.requests.length, before, 'the site was reached');
      assert.ok(strictRefusals.some((r) => r.host === '127.0.0.1' && r.kind === 'blocked_address'));
    } finally {
      await strict.close();
    }
  });
});
