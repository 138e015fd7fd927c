/**
 * A stored crawl's pages as the analysis keeps them (src/crawl/durable/stored-snapshot.ts, storedPage):
 * equal header maps and empty lists are one instance each, and a 2xx page reached without redirects
 * keeps only its first referrer (docs/architecture.md, "Durable crawl", Memory). The analysis of the
 * pages read back that way must give exactly what the crawl's own pages give, on the fixture sites.
 */
import assert from 'node:assert/strict';
import { runAnalyzers, runAnalyzersOverBodies, type SnapshotPage } from '../../src/analyzers';
import { storedPage } from '../../src/crawl/durable/stored-snapshot';
import { StringPool } from '../../src/crawl/durable/string-pool';
import { crawlFixtureSite } from '../support/fixture-crawl';
import { storedRowOf } from '../support/stored-row';
import { useLoopbackGuard } from '../support/loopback-guard';

const SITES = ['broken-seo', 'broken-sec-perf', 'ssg-docs', 'ssg-shop', 'accuracy'] as const;

const PAGE: SnapshotPage = {
  url: 'https://example.com/a',
  finalUrl: 'https://example.com/a',
  status: 200,
  headers: { 'content-type': 'text/html', 'set-cookie': ['a=1', 'b=2'] },
  body: null,
  ttfbMs: 12.5,
  bytes: 100,
  depth: 2,
  redirectChain: [],
  foundOn: ['https://example.com/', 'https://example.com/b', 'https://example.com/c'],
  linkedFrom: 7,
};

describe('stored crawl pages as the analysis keeps them', function () {
  this.timeout(60_000);
  useLoopbackGuard();

  it('keeps equal header maps and empty lists once, and the first referrer of a plain 2xx page', () => {
    const pool = new StringPool();
    const a = storedPage(storedRowOf(PAGE), pool);
    const b = storedPage(
      storedRowOf({ ...PAGE, url: 'https://example.com/b', finalUrl: 'https://example.com/b' }),
      pool,
    );
    assert.equal(a.headers, b.headers, 'one header map for equal headers');
    assert.deepEqual(a.headers, PAGE.headers);
    assert.equal(a.redirectChain, b.redirectChain, 'one empty redirect chain');
    assert.deepEqual(a.foundOn, ['https://example.com/']);
    assert.equal(a.foundOn, b.foundOn, 'pages first linked from the same page share one referrer list');
    assert.ok(Object.isFrozen(a.foundOn), 'a shared list cannot be changed through one page');
    assert.equal(a.linkedFrom, 7, 'the exact count stays');
    const other = storedPage(storedRowOf({ ...PAGE, headers: { 'content-type': 'text/plain' } }), pool);
    assert.notEqual(other.headers, a.headers);
    assert.deepEqual(other.headers, { 'content-type': 'text/plain' });
  });

  it('keeps every referrer of a page answering other than 2xx or reached through a redirect', () => {
    const pool = new StringPool();
    assert.deepEqual(storedPage(storedRowOf({ ...PAGE, status: 404 }), pool).foundOn, PAGE.foundOn);
    const hop = { url: 'https://example.com/old', status: 301, location: '/a' };
    const redirected = storedPage(storedRowOf({ ...PAGE, url: hop.url, redirectChain: [hop] }), pool);
    assert.deepEqual(redirected.foundOn, PAGE.foundOn);
    assert.deepEqual(redirected.redirectChain, [hop]);
    const home = storedPage(storedRowOf({ ...PAGE, depth: 0, foundOn: undefined, linkedFrom: undefined }), pool);
    assert.equal(home.foundOn, undefined);
  });

  for (const site of SITES) {
    it(`${site}: the pages read back give the same analyzers, findings and pages as the crawl's own`, async () => {
      const snapshot = await crawlFixtureSite(site);
      const pool = new StringPool();
      const pages = snapshot.pages.map((page) => storedPage(storedRowOf(page), pool));
      const full = runAnalyzers(snapshot);
      const stored = await runAnalyzersOverBodies(
        { ...snapshot, pages },
        (async function* () {
          for (const page of snapshot.pages) yield page.body;
        })(),
      );
      const plain = (r: typeof full) => ({ ...r, pages: [...r.pages] });
      assert.deepEqual(plain(stored), plain(full));
      if (site === 'ssg-docs')
        assert.ok(
          pages.some((p, i) => (p.foundOn?.length ?? 0) < (snapshot.pages[i]!.foundOn?.length ?? 0)),
          'some page kept fewer referrers than the crawl found',
        );
    });
  }
});
