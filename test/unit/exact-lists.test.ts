/**
 * The pages listing's rows, made from the summaries each time they are gone over, and
 * a finding's URLs as the audit JSON names them (the first 100, shallowest first) and as rows for the
 * URL listing: made lazily, a finding at a time, and the same every time they are gone over (a write
 * retried after a database outage goes over them again).
 */
import assert from 'node:assert/strict';
import { PageSummaries } from '../../src/analyzers/page-summaries';
import type { PageSummary } from '../../src/analyzers/page-summary';
import { capFindingUrls, jsonPages, JSON_LIST_CAP, pageFactsOf } from '../../src/audits/exact-lists';
import type { Finding } from '../../src/schemas/audit';

const finding = (id: string, urls: string[]) => ({ id, analyzer: 'SEO_TITLE_MISSING', urls }) as unknown as Finding;

describe('exact finding URL lists', () => {
  const many = Array.from({ length: 250 }, (_, i) => `https://e.com/p/${i}`);
  const index = new Map(many.map((url, i) => [url, { depth: i % 2 === 0 ? 3 : 1, referrers: i }]));
  index.set('https://e.com/p/7', { depth: 0, referrers: 9 });
  const findings = [finding('fnd_1', many), finding('fnd_2', ['https://e.com/style.css', 'https://e.com/p/1'])];

  it('counts every URL and names the first 100, shallowest first, ties in the analyzer order', () => {
    const { findings: capped } = capFindingUrls(findings, index);
    assert.equal(capped[0]!.count, 250);
    assert.equal(capped[0]!.urls.length, JSON_LIST_CAP);
    assert.equal(capped[0]!.urls[0], 'https://e.com/p/7');
    assert.deepEqual(capped[0]!.urls.slice(1, 4), ['https://e.com/p/1', 'https://e.com/p/3', 'https://e.com/p/5']);
    assert.deepEqual(capped[1]!.urls, ['https://e.com/p/1', 'https://e.com/style.css'], 'unknown depth last');
  });

  it('makes a row per URL with its position, depth and referrers, the same on every pass', () => {
    const { findingUrls } = capFindingUrls(findings, index);
    const first = [...findingUrls];
    assert.equal(first.length, 252);
    assert.deepEqual(first[0], { finding_id: 'fnd_1', position: 0, url: 'https://e.com/p/7', depth: 0, referrers: 9 });
    assert.deepEqual(first[250], {
      finding_id: 'fnd_2',
      position: 0,
      url: 'https://e.com/p/1',
      depth: 1,
      referrers: 1,
    });
    assert.deepEqual(first[251], {
      finding_id: 'fnd_2',
      position: 1,
      url: 'https://e.com/style.css',
      depth: null,
      referrers: null,
    });
    assert.deepEqual([...findingUrls], first);
  });
});

describe('page summaries and the pages listing made from them', () => {
  const summary = (url: string, depth: number, redirects: { url: string; status: number }[] = []): PageSummary => ({
    url,
    status_code: 200,
    depth,
    ttfb_ms: 10,
    bytes: 100,
    content_type: 'text/html',
    title: `Title of ${url}`,
    requestedUrl: redirects[0]?.url ?? url,
    redirects,
    indexable: true,
    canonical: null,
    inlinks: 3,
    outlinks: 2,
  });
  const list = [
    summary('https://e.com/', 0),
    summary('https://e.com/a', 1, [{ url: 'https://e.com/old-a', status: 301 }]),
    summary('https://e.com/b', 1),
    // A second redirect to /a: its hop is a row of its own, /a is not listed again.
    summary('https://e.com/a', 2, [{ url: 'https://e.com/older-a', status: 308 }]),
    summary('https://e.com/c', 2),
  ];

  for (const chunkPages of [2, 1_000])
    it(`reads back every summary in order, as often as asked (${chunkPages} per serialized chunk)`, () => {
      const summaries = new PageSummaries(chunkPages);
      for (const s of list) summaries.push(s);
      assert.equal(summaries.length, list.length);
      assert.deepEqual([...summaries], list);
      assert.deepEqual([...summaries], list, 'a second pass reads the same');
      assert.deepEqual(jsonPages(summaries), list);
    });

  it('lists each URL once, a redirect hop as a row of its own, the same on every pass', () => {
    const summaries = new PageSummaries(2);
    for (const s of list) summaries.push(s);
    const rows = pageFactsOf(summaries);
    const first = [...rows];
    assert.deepEqual(
      first.map((r) => [r.url, r.redirect_to, r.inlinks]),
      [
        ['https://e.com/', null, 3],
        ['https://e.com/old-a', 'https://e.com/a', 3],
        ['https://e.com/a', null, 0],
        ['https://e.com/b', null, 3],
        ['https://e.com/older-a', 'https://e.com/a', 3],
        ['https://e.com/c', null, 3],
      ],
    );
    assert.deepEqual([...rows], first);
  });

  it('names the first 100 pages in the JSON, not more', () => {
    const summaries = new PageSummaries(7);
    for (let i = 0; i < 250; i++) summaries.push(summary(`https://e.com/p/${i}`, 1));
    const named = jsonPages(summaries);
    assert.equal(named.length, JSON_LIST_CAP);
    assert.equal(named[99]!.url, 'https://e.com/p/99');
    assert.equal(summaries.length, 250);
  });
});
