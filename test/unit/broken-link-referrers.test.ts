import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { referenceHashes } from '../../src/analyzers/page-references';
import { parsePage, parsePages } from '../../src/analyzers/parse';
import { brokenLink } from '../../src/analyzers/seo-site';
import { hash52 } from '../../src/analyzers/simhash';
import type { CrawlSnapshot, SnapshotPage } from '../../src/analyzers/snapshot';
import { CRAWL_LIMITS } from '../../src/crawl/limits';
import { extractLinks } from '../../src/crawl/page-links';
import { FIXTURE_SITES_DIR } from '../support/fixture-server';

/**
 * SEO_BROKEN_LINK names every page that links to a broken target, not only the first referrers the
 * crawl keeps (CRAWL_LIMITS.foundOnCap): each page's references are read by the crawl's rules.
 */

const ORIGIN = 'https://example.com';
const HTML = { 'content-type': 'text/html; charset=utf-8' };

function page(p: string, body: string, over: Partial<SnapshotPage> = {}): SnapshotPage {
  const url = `${ORIGIN}${p}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: HTML,
    body,
    ttfbMs: 10,
    bytes: 100,
    depth: 1,
    redirectChain: [],
    ...over,
  };
}

describe('SEO_BROKEN_LINK names every referrer', () => {
  it('lists all the pages linking to a broken page or image, past the crawl kept', () => {
    const linking = Array.from({ length: 15 }, (_, i) => `/p${i}`);
    const withImage = linking.slice(0, 12);
    const pages = [
      page('/', linking.map((p) => `<a href="${p}">${p}</a>`).join(''), { depth: 0 }),
      ...linking.map((p) =>
        page(p, `<a href="/gone#x">Gone</a>${withImage.includes(p) ? '<img src="img/missing.png" alt="x">' : ''}`),
      ),
      // control: a page linking elsewhere is not named
      page('/other', '<a href="/">Home</a>'),
      page('/gone', 'Not found', {
        status: 404,
        depth: 2,
        foundOn: linking.slice(0, CRAWL_LIMITS.foundOnCap).map((p) => `${ORIGIN}${p}`),
        linkedFrom: linking.length,
      }),
    ];
    const snapshot: CrawlSnapshot = {
      origin: ORIGIN,
      robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
      pages,
      linkChecks: [
        {
          url: `${ORIGIN}/img/missing.png`,
          status: 404,
          kind: 'resource',
          foundOn: withImage.slice(0, CRAWL_LIMITS.foundOnCap).map((p) => `${ORIGIN}${p}`),
          linkedFrom: withImage.length,
        },
      ],
    };
    const out = brokenLink.run(snapshot, parsePages(pages));
    assert.equal(out.status, 'fail');
    const [gone, image] = out.findings;
    assert.equal(gone!.message, 'An internal link target answers HTTP 404 (Not Found). It is linked from 15 pages.');
    assert.deepEqual(gone!.urls, [`${ORIGIN}/gone`, ...linking.map((p) => `${ORIGIN}${p}`)]);
    assert.equal(image!.message, 'A resource target answers HTTP 404 (Not Found). It is linked from 12 pages.');
    assert.deepEqual(image!.urls, [`${ORIGIN}/img/missing.png`, ...withImage.map((p) => `${ORIGIN}${p}`)]);
  });

  it('reads the same references as the crawl, on every page of the fixture sites', () => {
    let pages = 0;
    for (const site of fs.readdirSync(FIXTURE_SITES_DIR))
      for (const file of fs.readdirSync(path.join(FIXTURE_SITES_DIR, site), { recursive: true }) as string[]) {
        if (!file.endsWith('.html')) continue;
        const body = fs.readFileSync(path.join(FIXTURE_SITES_DIR, site, file), 'utf8').replaceAll('{{ORIGIN}}', ORIGIN);
        const parsed = parsePage(page(`/${file.replace(/index\.html$/, '')}`, body));
        const crawl = extractLinks(body, parsed.url);
        const expected = new Set([...crawl.links, ...crawl.resources.map((r) => r.url)].map(hash52));
        assert.deepEqual(new Set(referenceHashes(parsed)), expected, `${site}/${file}`);
        pages++;
      }
    assert.ok(pages > 40, `${pages} pages compared`);
  });
});
