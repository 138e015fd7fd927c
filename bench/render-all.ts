import os from 'node:os';
import { DEFAULT_CHROMIUM_PATH } from '../src/browser/chromium';
import { BrowserPool } from '../src/browser/pool';
import { parseCidrList } from '../src/outbound/policy';
import { serveGeneratedSite } from './generated-site';

/**
 * `node --import tsx bench/render-all.ts`: what `render: "all"` costs per page on this machine
 * (docs/analyzers.md, "Browser stage"), on the benches' generated site (text, a stylesheet, a deferred
 * script, an image, a list of links).
 * 1. One browser worker, warm (a pool of one Chromium, started and used once before timing): each page
 *    rendered as the crawl renders it with `render: "all"` (load, quiet network, axe's three rules,
 *    the console errors, the DOM read back), then the same pages rendered without the checks, as an
 *    application shell is; per page: mean, median and 90th percentile. Target: ≤ 1.5 s per page.
 * 2. Two browser workers (two pools of one Chromium each, as two worker processes with
 *    BROWSER_CONCURRENCY=1), taking pages from one queue as the task queue hands chunks out:
 *    pages per second sustained, beside one worker's.
 * BENCH_RENDER_PAGES sets the pages timed (default 40).
 */
const PAGES = Number(process.env.BENCH_RENDER_PAGES || 40);
const allow = parseCidrList('127.0.0.0/8');

async function main(): Promise<void> {
  const site = await serveGeneratedSite(Math.max(100, PAGES));
  const urls = Array.from({ length: PAGES }, (_, i) => `${site.origin}/p/${i}`);
  console.log(`render: "all" on ${PAGES} generated pages, ${os.cpus().length} CPU cores, load ${loadNow()}`);
  try {
    const one = await pools(1);
    try {
      await one[0]!.renderDom(`${site.origin}/`, { checks: true }); // warm: Chromium started, axe read
      const checked = await timed(urls, (url) => one[0]!.renderDom(url, { checks: true }));
      const plain = await timed(urls, (url) => one[0]!.renderDom(url));
      console.log('1. one browser worker, warm, per page:');
      console.log(`   with the checks:    ${summary(checked.ms)}${failures(checked.failed)}`);
      console.log(`   without the checks: ${summary(plain.ms)}${failures(plain.failed)}`);
      console.log(`   one worker sustains ${perSecond(PAGES, sum(checked.ms))} pages/s with the checks`);
    } finally {
      await Promise.all(one.map((pool) => pool.close()));
    }
    const two = await pools(2);
    try {
      await Promise.all(two.map((pool) => pool.renderDom(`${site.origin}/`, { checks: true })));
      const queue = [...urls];
      const started = performance.now();
      await Promise.all(
        two.map(async (pool) => {
          for (let url = queue.shift(); url !== undefined; url = queue.shift())
            await pool.renderDom(url, { checks: true });
        }),
      );
      const ms = performance.now() - started;
      console.log(
        `2. two browser workers: ${perSecond(PAGES, ms)} pages/s (${PAGES} pages in ${(ms / 1000).toFixed(1)} s)`,
      );
    } finally {
      await Promise.all(two.map((pool) => pool.close()));
    }
    console.log(`load after: ${loadNow()}`);
  } finally {
    await site.close();
  }
}

async function pools(count: number): Promise<BrowserPool[]> {
  const list = Array.from(
    { length: count },
    () => new BrowserPool({ executablePath: DEFAULT_CHROMIUM_PATH, size: 1, allow }),
  );
  await Promise.all(list.map((pool) => pool.renderDom('about:blank')));
  return list;
}

async function timed(
  urls: string[],
  render: (url: string) => Promise<{ status: string }>,
): Promise<{ ms: number[]; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  for (const url of urls) {
    const started = performance.now();
    const result = await render(url);
    ms.push(performance.now() - started);
    if (result.status !== 'rendered') failed++;
  }
  return { ms, failed };
}

function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `mean ${fmt(sum(ms) / ms.length)}, median ${fmt(at(0.5))}, p90 ${fmt(at(0.9))}`;
}

const sum = (ms: number[]) => ms.reduce((a, b) => a + b, 0);
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const perSecond = (pages: number, ms: number) => (pages / (ms / 1000)).toFixed(2);
const failures = (n: number) => (n > 0 ? ` (${n} not rendered)` : '');
const loadNow = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
