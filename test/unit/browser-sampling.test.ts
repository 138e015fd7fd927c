import assert from 'node:assert/strict';
import { samplePages, SAMPLE_SIZE, type CrawledPageLinks } from '../../src/browser/sampling';
import { runBrowserStage } from '../../src/browser/stage';
import type { BrowserPageResult } from '../../src/browser/stage-result';

const HTML = { 'content-type': 'text/html; charset=utf-8' };

function page(path: string, linkedFrom: number, extra: Partial<CrawledPageLinks> = {}): CrawledPageLinks {
  const url = `https://site.example${path}`;
  return { url, finalUrl: url, status: 200, headers: HTML, depth: path === '/' ? 0 : 1, linkedFrom, ...extra };
}

describe('browser stage sampling', () => {
  const site = [
    page('/', 0),
    page('/rarely', 1),
    page('/popular', 40),
    page('/broken', 90, { status: 404 }),
    page('/feed.xml', 80, { headers: { 'content-type': 'application/rss+xml' } }),
    page('/second', 20),
    page('/alias', 35, { finalUrl: 'https://site.example/popular' }),
    page('/tie-b', 10, { depth: 2 }),
    page('/tie-a', 10, { depth: 2 }),
    page('/tie-shallow', 10, { depth: 1 }),
    ...Array.from({ length: 40 }, (_, k) => page(`/deep/${k}`, 2, { depth: 3 })),
  ];

  it('takes the home page, then the most-linked HTML pages that answered 200, each final URL once', () => {
    const sample = samplePages(site, 'pro');
    assert.deepEqual(sample, [
      'https://site.example/',
      'https://site.example/popular',
      'https://site.example/second',
      'https://site.example/tie-shallow',
      'https://site.example/tie-a',
    ]);
  });

  it('samples the tier sizes: free 1, pro 5, team 10, enterprise 25', () => {
    assert.deepEqual(SAMPLE_SIZE, { free: 1, pro: 5, team: 10, enterprise: 25 });
    assert.deepEqual(samplePages(site, 'free'), ['https://site.example/']);
    assert.equal(samplePages(site, 'team').length, 10);
    assert.equal(samplePages(site, 'enterprise').length, 25);
    assert.equal(new Set(samplePages(site, 'enterprise')).size, 25);
  });

  it('renders the home page even when it did not answer 200, and samples nothing of an empty crawl', () => {
    const redirected = [page('/', 0, { status: 500, finalUrl: 'https://www.site.example/' }), page('/a', 3)];
    assert.deepEqual(samplePages(redirected, 'pro'), ['https://www.site.example/', 'https://site.example/a']);
    assert.deepEqual(samplePages([], 'enterprise'), []);
  });
});

describe('browser stage order', () => {
  const measured = (url: string): BrowserPageResult => ({ url, status: 'unrenderable', reason: `rendered ${url}` });

  it('renders the home page before the sample is known, then the rest in sampling order', async () => {
    const events: string[] = [];
    let release: (urls: string[]) => void = () => undefined;
    const sample = new Promise<string[]>((resolve) => (release = resolve));
    const stage = runBrowserStage('https://site.example/', {
      render: async (url) => {
        events.push(`render ${url}`);
        return measured(url);
      },
      sample: () => {
        events.push('wait for the crawl');
        return sample;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(events, ['render https://site.example/', 'wait for the crawl']);
    release(['https://www.site.example/', 'https://www.site.example/a', 'https://www.site.example/b']);
    const result = await stage;
    assert.deepEqual(
      result.pages.map((p) => p.url),
      ['https://www.site.example/', 'https://www.site.example/a', 'https://www.site.example/b'],
    );
    assert.equal(events.length, 4);
  });
});
