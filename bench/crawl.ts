import { runAnalyzers } from '../src/analyzers';
import { crawlSite } from '../src/crawl/crawler';
import { DEFAULT_USER_AGENT } from '../src/outbound/client';
import { parseCidrList } from '../src/outbound/policy';
import { serveGeneratedSite as serve } from './generated-site';

/**
 * `npm run bench:crawl`: crawl and analyze a generated 500-page site on 127.0.0.1 in this process.
 * Prints pages/s end to end, CPU milliseconds per page for the analysis, and peak RSS; the same
 * crawl of a 10-page site shows the small-audit floor. Baseline: a plain sequential GET of every
 * page with the same client, measured in the same run.
 */
const PAGES = Number(process.env.BENCH_CRAWL_PAGES || 500);

async function measure(total: number): Promise<void> {
  const site = await serve(total);
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  try {
    const allow = parseCidrList('127.0.0.0/8');
    const started = performance.now();
    const snapshot = await crawlSite({
      origin: site.origin,
      pageBudget: total,
      allow,
      userAgent: DEFAULT_USER_AGENT,
      lookupDns: false,
      probeTls: false,
    });
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
    console.log(
      `      baseline: a bare sequential fetch takes ${baselineMs.toFixed(2)} ms/page; the crawl spends ${(crawlMs / snapshot.pages.length).toFixed(2)} ms/page (4 in flight, every politeness rule on)`,
    );
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
