/**
 * Client-side redirects (docs/analyzers.md): the fixture site `client-redirects`, served on
 * 127.0.0.1, has the stubs static-site generators write for moved pages (jekyll-redirect-from's,
 * Hugo's alias with no link at all, a Refresh header), beside controls: a page that reloads itself
 * and two real pages sharing a title. Crawled and analysed end to end.
 */
import assert from 'node:assert/strict';
import { runAnalyzers, type AnalysisResult } from '../../src/analyzers';
import type { CrawlSnapshot } from '../../src/analyzers/snapshot';
import type { Finding } from '../../src/schemas/audit';
import { crawlFixtureSite } from '../support/fixture-crawl';
import { useLoopbackGuard } from '../support/loopback-guard';

const STUBS = ['/old-guide', '/legacy', '/header-moved', '/moved-away'];

describe('client-side redirects, crawled and analysed', function () {
  this.timeout(60_000);
  useLoopbackGuard();
  let snapshot: CrawlSnapshot;
  let result: AnalysisResult;
  const path = (url: string) => url.replace(snapshot.origin, '');
  const findings = (analyzer: string): Finding[] => result.findings.filter((f) => f.analyzer === analyzer);
  const named = (analyzer: string): Set<string> => new Set(findings(analyzer).flatMap((f) => f.urls.map(path)));

  before(async () => {
    snapshot = await crawlFixtureSite('client-redirects', 50);
    result = runAnalyzers(snapshot);
  });

  it('crawls on through a refresh: the pages only a refresh leads to, and the pages they link to', () => {
    const crawled = new Set(snapshot.pages.map((p) => path(p.finalUrl)));
    for (const p of ['/only-via-refresh', '/deeper', '/header-target', '/guide', ...STUBS])
      assert.ok(crawled.has(p), `${p} crawled (${[...crawled].join(' ')})`);
    // the page reached through the alias page's refresh sits one click below it
    const target = snapshot.pages.find((p) => path(p.finalUrl) === '/only-via-refresh')!;
    assert.equal(target.depth, 2);
    assert.deepEqual(target.foundOn?.map(path), ['/legacy']);
  });

  it('lists a redirect page as not indexable, and a page that reloads itself as indexable', () => {
    const indexable = new Map([...result.pages].map((p) => [path(p.url), p.indexable]));
    for (const stub of STUBS) assert.equal(indexable.get(stub), false, stub);
    assert.equal(indexable.get('/ticker'), true);
    assert.equal(indexable.get('/guide'), true);
  });

  it('judges no redirect page by its title, description, heading, link text or noindex', () => {
    for (const analyzer of [
      'SEO_TITLE_DUPLICATE',
      'SEO_TITLE_MISSING',
      'SEO_META_DESC_MISSING',
      'SEO_H1_MISSING',
      'SEO_LINK_TEXT_GENERIC',
      'SEO_NOINDEX',
      'SEO_ORPHAN_PAGE',
      'SEO_DUPLICATE_CONTENT',
    ])
      for (const stub of STUBS) assert.ok(!named(analyzer).has(stub), `${analyzer} names ${stub}`);
    // controls: two real pages sharing a title are duplicates; the self-reloading page is judged (no <h1>)
    const twins = findings('SEO_TITLE_DUPLICATE').find((f) => /same title/.test(f.message));
    assert.deepEqual(twins?.urls.map(path).sort(), ['/twin-a', '/twin-b']);
    assert.ok(named('SEO_H1_MISSING').has('/ticker'));
    // an orphan that is a real page is still one
    assert.deepEqual([...named('SEO_ORPHAN_PAGE')], ['/unlinked']);
  });

  it('reports links to a redirect page as links through a redirect, and a sitemap listing one', () => {
    const links = findings('SEO_INTERNAL_REDIRECT_LINK');
    const oldGuide = links.find((f) => f.message.startsWith('/old-guide '));
    assert.ok(oldGuide, links.map((f) => f.message).join('\n'));
    assert.equal(
      oldGuide.message,
      `/old-guide redirects in the browser (a refresh after 0 s) to ${snapshot.origin}/guide; it is linked from 1 page.`,
    );
    assert.deepEqual(oldGuide.urls.map(path), ['/']);
    assert.match(
      oldGuide.evidence,
      /\/old-guide \(200, refresh after 0 s\) → http:\/\/127\.0\.0\.1:\d+\/guide; linked from \//,
    );
    assert.ok(links.some((f) => f.message.startsWith('/header-moved redirects in the browser (a refresh after 0 s)')));
    const sitemap = findings('SEO_SITEMAP_INVALID').find((f) =>
      /do not answer 200|does not answer 200/.test(f.message),
    );
    assert.deepEqual(sitemap?.urls.map(path), ['/moved-away']);
    assert.match(sitemap!.evidence, /moved-away \(client-side redirect to http:\/\/127\.0\.0\.1:\d+\/guide\)/);
  });
});
