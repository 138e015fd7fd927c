import assert from 'node:assert/strict';
import { shellsToRender } from '../../src/crawl/durable/frontier-commit';
import { REREAD_SITE, serveRereadSite } from '../support/reread-site';
import { crawlOnLoopback } from '../support/fixture-crawl';

/**
 * A page reached both directly and through a redirect to it is one referrer of its links, however
 * many URLs led to it (the in-process crawl; test/integration/redirect-referrers.test.ts has the durable one).
 */
describe('referrers of a page crawled again (directly and through redirects)', function () {
  this.timeout(30_000);

  it('counts the page once for each page, link check and subresource it refers to', async () => {
    const site = await serveRereadSite();
    try {
      const snapshot = await crawlOnLoopback(site.origin, 100);
      const byPath = (p: string) => snapshot.pages.find((page) => page.url === `${site.origin}${p}`);
      // The page was reached three times: the redirect's answer is the same page.
      assert.equal(byPath('/old')?.finalUrl, `${site.origin}/a`);
      assert.equal(byPath('/moved')?.finalUrl, `${site.origin}/a`);
      assert.equal(byPath('/a')?.finalUrl, `${site.origin}/a`);
      const expected = REREAD_SITE.referrers.length;
      assert.equal(byPath('/t')?.linkedFrom, expected);
      assert.equal(byPath('/gone')?.status, 404);
      assert.equal(byPath('/gone')?.linkedFrom, expected);
      // The sitemap's aliases of known pages are not crawled again: the home page's keeps its referrers.
      for (const alias of REREAD_SITE.sitemapAliases) assert.equal(byPath(alias), undefined, alias);
      const homeAlias = snapshot.indexAliases?.find((a) => a.url === `${site.origin}/index.html`);
      assert.equal(homeAlias?.aliasOf, `${site.origin}/`);
      // The crawl's record of the alias carries the exact count beside the first referrers it names.
      assert.equal(homeAlias?.linkedFrom, expected);
      assert.equal(
        snapshot.indexAliases?.find((a) => a.url === `${site.origin}/docs/index.html`)?.aliasOf,
        `${site.origin}/docs/`,
      );
      assert.equal(byPath('/guide/')?.status, 200); // listed only, before its alias: crawled once
      const style = snapshot.resources?.find((r) => r.url === `${site.origin}/style.css`);
      assert.equal(style?.linkedFrom, REREAD_SITE.htmlPages.length);
    } finally {
      await site.close();
    }
  });
});

describe('the shells a page step has rendered', () => {
  const page = (url: string, finalUrl: string) => ({
    url,
    page: { url, finalUrl, status: 200, headers: {}, body: '', ttfbMs: 1, bytes: 1, depth: 1, redirectChain: [] },
    answeredHtml: true,
  });
  const commit = (shells: string[]) => ({
    step: 3,
    pages: [page('/a', '/a'), page('/old', '/a'), page('/b', '/b'), page('/c', '/c')],
    links: [],
    targets: [],
    rateLimitedPages: 0,
    externalCheckBudget: 0,
    shells,
  });

  it('renders each page once: not a second URL of a page of the step, nor a page an earlier step read', () => {
    assert.deepEqual(shellsToRender(commit(['/a', '/old', '/b', '/c']), new Set(['/c'])), ['/a', '/b']);
    assert.deepEqual(shellsToRender(commit(['/old', '/a']), new Set()), ['/old']);
    assert.deepEqual(shellsToRender(commit([]), new Set(['/a'])), []);
  });
});
