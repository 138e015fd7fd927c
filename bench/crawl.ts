import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { runAnalyzers } from '../src/analyzers';
import { crawlSite } from '../src/crawl/crawler';
import { DEFAULT_USER_AGENT } from '../src/outbound/client';
import { parseCidrList } from '../src/outbound/policy';

/**
 * `npm run bench:crawl`: crawl and analyze a generated 500-page site on 127.0.0.1 in this process.
 * Prints pages/s end to end, CPU milliseconds per page for the analysis, and peak RSS; the same
 * crawl of a 10-page site shows the small-audit floor. Baseline: a plain sequential GET of every
 * page with the same client, measured in the same run.
 */
const PAGES = Number(process.env.BENCH_CRAWL_PAGES || 500);

/** Home → 25 sections → 20 products each: every page within the depth limit. */
function linksOf(path: string, total: number): string[] {
  const sections = Math.ceil(total / 20);
  if (path === '/') return Array.from({ length: sections }, (_, s) => `/s/${s}`);
  const section = /^\/s\/(\d+)$/.exec(path);
  if (section) return Array.from({ length: 20 }, (_, k) => `/p/${Number(section[1]) * 20 + k}`).filter((p) => Number(p.slice(3)) < total);
  const i = Number(path.slice(3));
  return [`/p/${(i + 1) % total}`, `/s/${Math.floor(i / 20)}`, '/'];
}

function page(path: string, i: number, total: number): string {
  const links = linksOf(path, total).map((href) => `<li><a href="${href}">Widget catalogue: ${href}</a></li>`).join('');
  const filler = '<p>Widgets for every workshop, made to last and priced fairly. '.repeat(60);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme widget number ${i} for every workshop</title><meta name="description" content="Widget ${i} from Acme.">
<link rel="stylesheet" href="/site.css"><script src="/app.js" defer></script></head>
<body><h1>Widget ${i}</h1><img src="/logo.png" alt="Acme" width="40" height="40"><ul>${links}</ul>${filler}</body></html>`;
}

async function serve(total: number): Promise<{ origin: string; close(): Promise<void> }> {
  const bodies = new Map<string, Buffer>();
  const paths = ['/', ...Array.from({ length: Math.ceil(total / 20) }, (_, s) => `/s/${s}`), ...Array.from({ length: total }, (_, i) => `/p/${i}`)];
  paths.forEach((path, i) => bodies.set(path, zlib.gzipSync(page(path, i, total))));
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const body = bodies.get(url);
    if (body) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'cache-control': 'max-age=60' }).end(body);
    } else if (url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    } else if (['/site.css', '/app.js', '/logo.png'].includes(url)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=31536000, immutable' }).end('x'.repeat(2048));
    } else {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Not found</title><h1>Not found</h1><p>Try the home page.</p>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function measure(total: number): Promise<void> {
  const site = await serve(total);
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  try {
    const allow = parseCidrList('127.0.0.0/8');
    const started = performance.now();
    const snapshot = await crawlSite({ origin: site.origin, pageBudget: total, allow, userAgent: DEFAULT_USER_AGENT, lookupDns: false, probeTls: false });
    const crawlMs = performance.now() - started;
    const cpuBefore = process.cpuUsage();
    const analysis = runAnalyzers(snapshot);
    const cpu = process.cpuUsage(cpuBefore);
    const totalMs = performance.now() - started;
    const cpuMsPerPage = (cpu.user + cpu.system) / 1000 / snapshot.pages.length;
    console.log(
      `${String(total).padStart(4)}-page site: ${snapshot.pages.length} pages crawled in ${crawlMs.toFixed(0)} ms, ` +
        `crawl+analysis ${totalMs.toFixed(0)} ms = ${(snapshot.pages.length / (totalMs / 1000)).toFixed(0)} pages/s end to end; ` +
        `analysis ${cpuMsPerPage.toFixed(2)} ms CPU/page (${analysis.analyzers.length} analyzers); peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
    );
    // Baseline: the same pages fetched one after another, nothing else.
    const baselineStarted = performance.now();
    for (const p of snapshot.pages.slice(0, 100)) await (await fetch(p.finalUrl)).arrayBuffer();
    const baselineMs = (performance.now() - baselineStarted) / Math.min(100, snapshot.pages.length);
    console.log(`      baseline: a bare sequential fetch takes ${baselineMs.toFixed(2)} ms/page; the crawl spends ${(crawlMs / snapshot.pages.length).toFixed(2)} ms/page (4 in flight, every politeness rule on)`);
  } finally {
    clearInterval(sampler);
    await site.close();
  }
}

async function main(): Promise<void> {
  await measure(10);
  await measure(PAGES);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
