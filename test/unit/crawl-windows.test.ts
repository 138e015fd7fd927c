import assert from 'node:assert/strict';
import { crawlWindows, stepPagesIn } from '../../src/crawl/durable/step-context';

const robots = (body: string) => ({
  robots: { kind: 'fetched' as const, url: 'https://example.com/robots.txt', status: 200, body },
});
const open = robots('User-agent: *\nDisallow:\n');

describe('crawl windows: the steps one crawl runs at once', () => {
  it('runs four page steps with the default per-host limit of 4, one request each, and checks two at a time', () => {
    assert.deepEqual(crawlWindows(open, 4), { pages: 4, checks: 2 });
  });

  it('never runs more steps than the per-host limit has requests, nor more checks than the external limit', () => {
    assert.deepEqual(crawlWindows(open, 1), { pages: 1, checks: 1 });
    assert.deepEqual(crawlWindows(open, 3), { pages: 3, checks: 2 });
    assert.deepEqual(crawlWindows(open, 16), { pages: 4, checks: 2 });
  });

  it('keeps a render-all crawl at two page steps (its share of the browser queue)', () => {
    assert.deepEqual(crawlWindows(open, 4, true), { pages: 2, checks: 2 });
  });

  it('makes the crawl one step at a time under a Crawl-delay', () => {
    assert.deepEqual(crawlWindows(robots('User-agent: *\nCrawl-delay: 2\n'), 4), { pages: 1, checks: 1 });
  });

  it('takes smaller steps in a wider window, so the pages held at once stay two full steps', () => {
    assert.equal(stepPagesIn(1, 500), 500);
    assert.equal(stepPagesIn(2, 500), 500);
    assert.equal(stepPagesIn(4, 500), 250);
    assert.equal(stepPagesIn(4, 2), 1);
    assert.equal(stepPagesIn(4, 1), 1, 'never a step of no page');
    for (const window of [1, 2, 4]) assert.ok(stepPagesIn(window, 500) * window <= 1_000);
  });
});
