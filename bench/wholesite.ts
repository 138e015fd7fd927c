import { runAnalyzers } from '../src/analyzers';
import { crawlSite } from '../src/crawl/crawler';
import { DEFAULT_USER_AGENT } from '../src/outbound/client';
import { parseCidrList } from '../src/outbound/policy';
import { auditSite, type SizeResult } from './wholesite-audit';
import { printProjection, printSize, printTable } from './wholesite-report';
import { serveWholeSite } from './wholesite-site';
import { PAGE_BUDGETS, WholesiteStack } from './wholesite-stack';

/**
 * `npm run bench:wholesite [-- --pages 500,2000] [--audit-workers 2] [--worker-cpu 0.5]`: whole generated sites (1,000, 10,000 and 100,000
 * pages by default; bench/wholesite-site.ts) audited end to end through the service as `npm start`
 * runs it (compiled, started afresh for each size after a 30-page warm-up audit): live enterprise
 * audits triggered through the API, crawled and analyzed by the audit worker
 * process, the PDF rendered by the report worker (BROWSER_STAGE=off, PAGE_BUDGETS set explicitly).
 * Per size it prints pages crawled, trigger→completed wall time, pages/s, the peak RSS of the API
 * process and of every worker process, and the database growth per page; then a table with the
 * flatness (pages/s against the smallest size) and the ratio to the baseline measured first in the
 * same run, an in-process crawl+analysis of a 500-page site; then a projection for 1,000,000 pages.
 * `--audit-workers n` adds n - 1 machines that run only the audit worker (SERVICE_ROLES=worker), so
 * the crawl's steps spread over n workers; `--worker-cpu c` limits each audit worker to c cores
 * (bench/cpu-cap.ts), so that a second worker has a core to add on a machine with few.
 * It asserts nothing about time: it exits non-zero only when an audit fails or the stack cannot start.
 */
const DEFAULT_SIZES = [1_000, 10_000, 100_000];
const BASELINE_PAGES = 500;

/** The value of `--name v` or `--name=v`; undefined when absent. */
function option(argv: string[], name: string): string | undefined {
  const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  return argv[i]!.includes('=') ? argv[i]!.slice(name.length + 1) : (argv[i + 1] ?? '');
}

function sizesFromArgs(argv: string[]): number[] {
  const raw = option(argv, '--pages');
  if (raw === undefined) return DEFAULT_SIZES;
  const sizes = raw.split(',').map((part) => {
    const match = /^(\d[\d_]*)([km]?)$/i.exec(part.trim());
    const value = match
      ? Number(match[1]!.replace(/_/g, '')) * { '': 1, k: 1e3, m: 1e6 }[match[2]!.toLowerCase()]!
      : NaN;
    if (!Number.isInteger(value) || value < 10)
      throw new Error(`--pages takes sizes of 10 or more, e.g. 500,2000 (got "${part}")`);
    return value;
  });
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** Crawl and analysis of a generated site in this process, as bench:crawl does: pages and seconds. */
async function crawlInProcess(pages: number): Promise<{ pages: number; seconds: number }> {
  const site = await serveWholeSite(pages);
  try {
    const started = performance.now();
    const snapshot = await crawlSite({
      origin: site.origin,
      pageBudget: pages,
      allow: parseCidrList('127.0.0.0/8'),
      userAgent: DEFAULT_USER_AGENT,
      lookupDns: false,
      probeTls: false,
    });
    runAnalyzers(snapshot);
    return { pages: snapshot.pages.length, seconds: (performance.now() - started) / 1000 };
  } finally {
    await site.close();
  }
}

/** The baseline, after a 30-page warm-up as the service gets: the in-process figure for 500 pages. */
async function inProcessPagesPerSecond(): Promise<number> {
  await crawlInProcess(30);
  const { pages, seconds } = await crawlInProcess(BASELINE_PAGES);
  const pps = pages / seconds;
  console.log(
    `baseline, in process: a ${BASELINE_PAGES}-page site crawled and analyzed, ${pages} pages in ` +
      `${seconds.toFixed(1)} s = ${pps.toFixed(1)} pages/s (no API, Temporal or database)`,
  );
  return pps;
}

/**
 * `--audit-workers n` or `n,m`: how many audit worker processes share the audits (1 by default); with
 * several counts each size runs with each, the fewest first, and the table gives the speed-up.
 */
function auditWorkersFromArgs(argv: string[]): number[] {
  const raw = option(argv, '--audit-workers');
  if (raw === undefined) return [1];
  const counts = raw.split(',').map((part) => {
    const count = Number(part);
    if (!Number.isInteger(count) || count < 1 || count > 8)
      throw new Error(`--audit-workers takes whole numbers from 1 to 8, e.g. 1,2 (got "${part}")`);
    return count;
  });
  return [...new Set(counts)].sort((a, b) => a - b);
}

/** `--worker-cpu c`: each audit worker limited to c cores, as on a machine of its own (none by default). */
function workerCpuFromArgs(argv: string[]): number | undefined {
  const raw = option(argv, '--worker-cpu');
  if (raw === undefined) return undefined;
  const cores = Number(raw);
  if (!(cores >= 0.05 && cores <= 64))
    throw new Error(`--worker-cpu takes a number of cores such as 0.5 (got "${raw}")`);
  return cores;
}

let stack: WholesiteStack | undefined;
let interrupted = false;

async function main(): Promise<number> {
  const sizes = sizesFromArgs(process.argv.slice(2));
  const workerCounts = auditWorkersFromArgs(process.argv.slice(2));
  const workerCpu = workerCpuFromArgs(process.argv.slice(2));
  console.log(
    `bench:wholesite: sites of ${sizes.map((x) => x.toLocaleString('en-US')).join(', ')} pages; ` +
      `live enterprise audits, BROWSER_STAGE=off, PAGE_BUDGETS=${PAGE_BUDGETS}; ` +
      `${workerCounts.join(' then ')} audit worker(s)` +
      (workerCpu === undefined ? '' : `, each limited to ${workerCpu} of a core`),
  );
  const inProcessPps = await inProcessPagesPerSecond();
  const starting = performance.now();
  stack = new WholesiteStack(
    (line) => console.log(`${line} (${((performance.now() - starting) / 1000).toFixed(0)} s)`),
    workerCounts[0],
    workerCpu,
  );
  await stack.start();
  const results: SizeResult[] = [];
  for (const [i, size] of sizes.entries())
    for (const [j, workers] of workerCounts.entries()) {
      // Each run in fresh processes: a worker's heap keeps what an earlier, smaller audit grew it to.
      if (i > 0 || j > 0) await stack.restartService(workers);
      // A first small audit warms the workers (connections, compiled code) before anything is timed.
      const warm = await auditSite(stack, 30, () => undefined);
      if (warm.failure) throw new Error(`the warm-up audit failed: ${warm.failure}\n${stack.tail()}`);
      console.log(`warm-up: a 30-page audit in ${(warm.wallMs / 1000).toFixed(1)} s`);
      console.log(`auditing the ${size.toLocaleString('en-US')}-page site with ${workers} audit worker(s)…`);
      const result = await auditSite(stack, size, (line) => console.log(line));
      results.push(result);
      printSize(result);
    }
  printTable(results, inProcessPps);
  // The projection from the runs with the fewest workers: one series of sizes.
  if (Math.max(...sizes) < 1_000_000) printProjection(results.filter((r) => r.auditWorkers === workerCounts[0]));
  const failed = results.filter((r) => r.failure);
  if (failed.length) console.error(`\n${failed.length} audit(s) failed; the service's last output:\n${stack.tail()}`);
  return failed.length ? 1 : 0;
}

async function cleanUp(): Promise<void> {
  if (!stack) return;
  const started = performance.now();
  await stack.stop().catch((err: unknown) => console.error('stopping the service failed:', err));
  console.log(`service, Temporal and Postgres stopped in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the service, Temporal and Postgres…`);
    void cleanUp().finally(() => process.exit(130));
  });
// Whatever else ends this process, the service's process group does not outlive it.
process.on('exit', () => stack?.killNow());

main().then(
  async (code) => {
    await cleanUp();
    process.exit(code);
  },
  async (err: unknown) => {
    if (interrupted) return;
    console.error(err);
    await cleanUp();
    process.exit(1);
  },
);
