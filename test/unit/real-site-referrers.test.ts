import assert from 'node:assert/strict';
import { DEFAULT_CACHE_DIR, isExtracted, loadManifest, siteDir } from '../../bench/compare/real-sites';
import { serveDirectory } from '../../bench/compare/static-server';
import { headerValue, type SnapshotPage } from '../../src/analyzers/snapshot';
import { extractLinks } from '../../src/crawl/crawler';
import { crawlOnLoopback } from '../support/fixture-crawl';

/**
 * Exact referrer counts on real sites nobody here wrote (bench/compare/real-sites.json, extracted by
 * `node --import tsx bench/real-sites.ts`; a site not extracted is skipped): each crawled page's
 * "linked from" equals the distinct pages, read once each, whose links name it. Before, a page also
 * reached through a redirect was counted twice (200 of MkDocs' 435 pages were off, by up to 14), and
 * a sitemap's `/index.html` alias was crawled again and lost most of its referrers (22 of 129).
 */
function distinctReferrers(pages: readonly SnapshotPage[]): Map<string, Set<string>> {
  const referrers = new Map<string, Set<string>>();
  const read = new Set<string>();
  for (const page of pages) {
    const html = /html/.test(headerValue(page.headers, 'content-type') ?? '');
    if (!page.body || page.status !== 200 || !html || read.has(page.finalUrl)) continue;
    read.add(page.finalUrl);
    const { links } = extractLinks(page.body, page.finalUrl, headerValue(page.headers, 'refresh'));
    for (const link of new Set(links))
      if (link !== page.finalUrl) (referrers.get(link) ?? referrers.set(link, new Set()).get(link)!).add(page.finalUrl);
  }
  return referrers;
}

describe('referrer counts on real sites', function () {
  this.timeout(180_000);

  for (const site of loadManifest()) {
    it(`${site.id} (${site.generator}): every page's count is its distinct referring pages`, async function () {
      if (!isExtracted(DEFAULT_CACHE_DIR, site)) this.skip();
      const server = await serveDirectory(siteDir(DEFAULT_CACHE_DIR, site), site.origins);
      try {
        const snapshot = await crawlOnLoopback(server.origin, 3_000);
        const referrers = distinctReferrers(snapshot.pages);
        const linked = snapshot.pages.filter((p) => p.depth !== 0);
        const off = linked.filter((p) => (p.linkedFrom ?? 0) !== (referrers.get(p.url)?.size ?? 0));
        assert.deepEqual(
          off.map((p) => `${p.url}: ${p.linkedFrom} counted, ${referrers.get(p.url)?.size ?? 0} pages`),
          [],
        );
        const crawled = new Set(snapshot.pages.map((p) => p.url));
        for (const alias of snapshot.indexAliases ?? []) assert.ok(!crawled.has(alias.url), alias.url);
      } finally {
        await server.close();
      }
    });
  }
});
