import os from 'node:os';
import { isHelper, rolePeakMiB } from './wholesite-memory';
import type { SizeResult } from './wholesite-audit';

/** Tables whose growth is always shown when they exist (audit results; per-page tables as they appear). */
const NAMED_TABLES = ['audits', 'audit_pages', 'audit_finding_urls'];

const n = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const s = (ms: number) => (ms / 1000).toFixed(1);
const percent = (share: number) => `${(share * 100).toFixed(0)} %`;
const pps = (r: SizeResult) => r.pagesCrawled / (r.wallMs / 1000);
export const dbBytes = (r: SizeResult) => [...r.tableGrowth.values()].reduce((a, b) => a + b, 0);

function bytes(x: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (Math.abs(x) >= 1024 && i < units.length - 1) [x, i] = [x / 1024, i + 1];
  return `${x.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** The lines printed as soon as one size has run. */
export function printSize(r: SizeResult): void {
  const head = `${n(r.size)}-page site (depth ${r.siteDepth}), ${r.auditWorkers} audit worker(s)`;
  if (r.failure) {
    console.log(`${head}: audit ${r.auditId} FAILED after ${s(r.wallMs)} s: ${r.failure}`);
  } else {
    console.log(
      `${head}: ${n(r.pagesCrawled)} pages crawled in ${s(r.wallMs)} s trigger→completed (crawl ${s(r.crawlMs)} s) ` +
        `= ${pps(r).toFixed(1)} pages/s; PDF stored ${r.reportMs === null ? 'not within the wait' : `${s(r.reportMs)} s later`}`,
    );
    const discovered = r.pagesDiscovered === undefined ? '' : `, ${n(r.pagesDiscovered)} URLs discovered`;
    const exhausted = r.budgetExhausted === undefined ? '' : `, budget ${r.budgetExhausted ? '' : 'not '}exhausted`;
    const depth = r.depth.max === null ? r.depth.source : `${r.depth.max} (${r.depth.source})`;
    const sitemapOnly = r.depth.sitemapOnly ? `, ${n(r.depth.sitemapOnly)} pages reached only from the sitemap` : '';
    console.log(`    budget ${n(r.pageBudget)}${exhausted}${discovered}; deepest page crawled: ${depth}${sitemapOnly}`);
  }
  for (const p of [...r.peaks].sort((a, b) => a.pid - b.pid))
    console.log(
      `    ${`${p.role} (pid ${p.pid})`.padEnd(30)} peak RSS ${n(p.peakRssKiB / 1024).padStart(5)} MiB (sampled every 250 ms), ` +
        `VmHWM ${n(p.hwmKiB / 1024).padStart(5)} MiB (since it started), CPU ${p.cpuSeconds.toFixed(1)} s` +
        (isHelper(p.role)
          ? ''
          : `; by phase: ${[...p.byPhase].map(([ph, kib]) => `${ph} ${n(kib / 1024)}`).join(', ')}` +
            ` (MiB); CPU by phase: ${[...p.cpuByPhase].map(([ph, cpu]) => `${ph} ${cpu.toFixed(1)}`).join(', ')} (s)`),
    );
  const grown = [...r.tableGrowth].sort((a, b) => b[1] - a[1]);
  const shown = grown.filter(([t], i) => i < 4 || NAMED_TABLES.includes(t));
  const absent = NAMED_TABLES.filter((t) => !r.tableGrowth.has(t));
  console.log(
    `    database: +${bytes(dbBytes(r))} (${shown.map(([t, b]) => `${t} +${bytes(b)}`).join(', ')}` +
      `${grown.length > shown.length ? ', …' : ''}${absent.length ? `; no growth or no table: ${absent.join(', ')}` : ''})` +
      `${r.pagesCrawled ? ` = ${n(dbBytes(r) / r.pagesCrawled)} bytes/page` : ''}`,
  );
  if (r.resultJson.bytes)
    console.log(
      `    audit JSON ${bytes(r.resultJson.bytes)} (${bytes(r.resultJson.stored)} stored in its column, compressed)`,
    );
  const starts = r.phaseStarts.map(({ phase, atMs }) => `${phase} ${(atMs / 1000).toFixed(1)}`);
  console.log(`    phases began at (s from the trigger): ${starts.join(', ')}`);
  const served = Object.entries(r.served).map(([kind, count]) => `${count} ${kind}`);
  console.log(`    the site answered ${served.join(', ')}`);
  console.log(
    `    load average (1 min) ${r.load.start.toFixed(2)} at the trigger, ${r.load.end.toFixed(2)} at completion; ` +
      `the machine's ${os.cpus().length} cores busy ${percent(r.machineBusy.all)} of the time ` +
      `(${[...r.machineBusy.byPhase].map(([phase, busy]) => `${phase} ${percent(busy)}`).join(', ')})`,
  );
}

/**
 * The summary table, with the flatness against the smallest size (run with as many workers), the
 * ratio to the in-process crawl and, when sizes ran with several worker counts, the speed-up over the
 * same size with the fewest.
 */
export function printTable(results: SizeResult[], inProcessPps: number): void {
  const ok = results.filter((r) => !r.failure);
  const smallestWith = (workers: number) => ok.find((r) => r.auditWorkers === workers);
  const fewest = (size: number) => ok.find((r) => r.size === size);
  const counts = new Set(results.map((r) => r.auditWorkers));
  const header = [
    'site pages',
    'crawled',
    'workers',
    'wall s',
    'pages/s',
    'flatness',
    'speed-up',
    'vs in-proc',
    'API MiB',
  ];
  const roles = [...new Set(results.flatMap((r) => r.peaks.map((p) => p.role)))].filter(
    (role) => role !== 'api' && !isHelper(role),
  );
  header.push(...roles.map((role) => `${role} MiB`), 'DB B/page');
  const rows = results.map((r) => {
    if (r.failure)
      return [n(r.size), 'FAILED', String(r.auditWorkers), s(r.wallMs), '', '', '', '', '', ...roles.map(() => ''), ''];
    const smallest = smallestWith(r.auditWorkers);
    const base = fewest(r.size);
    const peak = (role: string) => {
      const { mib, pids } = rolePeakMiB(r.peaks, role);
      return `${n(mib)}${pids > 1 ? `*${pids}` : ''}`;
    };
    return [
      n(r.size),
      n(r.pagesCrawled),
      String(r.auditWorkers),
      s(r.wallMs),
      pps(r).toFixed(1),
      smallest ? (pps(r) / pps(smallest)).toFixed(2) : '',
      counts.size > 1 && base ? (base.wallMs / r.wallMs).toFixed(2) : '',
      (pps(r) / inProcessPps).toFixed(2),
      peak('api'),
      ...roles.map(peak),
      n(dbBytes(r) / r.pagesCrawled),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  console.log(`\n${line(header)}`);
  for (const row of rows) console.log(line(row));
  console.log(
    `flatness: pages/s ÷ the smallest size's with as many workers (${ok[0] ? n(ok[0].size) : '?'} pages); ` +
      `speed-up: wall time of the same size with the fewest workers ÷ this one's; vs in-proc: pages/s ÷ the in-process ` +
      `crawl+analysis of a 500-page site (${inProcessPps.toFixed(1)} pages/s, no API, Temporal or database); ` +
      `MiB: peak RSS sampled every 250 ms during that audit and its PDF render (*k: k processes, a restart; ` +
      `each size in freshly started processes; helper processes are listed per size above)`,
  );
}

/** Time and database bytes for 1,000,000 pages, from the two largest completed runs, arithmetic shown. */
export function printProjection(results: SizeResult[]): void {
  const TARGET = 1_000_000;
  const ok = results.filter((r) => !r.failure && r.pagesCrawled > 0).sort((a, b) => a.pagesCrawled - b.pagesCrawled);
  console.log(`\nprojection for ${n(TARGET)} pages (not measured):`);
  if (!ok.length) return console.log('  no completed run to project from');
  const big = ok[ok.length - 1]!;
  const small = ok.length > 1 ? ok[ok.length - 2]! : undefined;
  const linearS = TARGET / pps(big);
  console.log(
    `  time, linear at the largest run's rate: ${n(TARGET)} / ${pps(big).toFixed(1)} pages/s = ${n(linearS)} s (${hours(linearS)})`,
  );
  const perPage = dbBytes(big) / big.pagesCrawled;
  console.log(
    `  database, linear: ${n(TARGET)} × ${n(perPage)} bytes/page (the ${n(big.pagesCrawled)}-page run) = ${bytes(TARGET * perPage)}`,
  );
  if (!small || small.pagesCrawled === big.pagesCrawled) {
    console.log(
      `  no scaling fit: ${small ? `the two largest runs both crawled ${n(big.pagesCrawled)} pages` : 'only one run'}`,
    );
    return;
  }
  const [p1, p2] = [small.pagesCrawled, big.pagesCrawled];
  if (p2 < 10_000)
    console.log(`  (runs under 10,000 pages are mostly fixed costs: the fits below say little about 1,000,000)`);
  const fit = (label: string, y1: number, y2: number, show: (y: number) => string) => {
    const b = Math.log(y2 / y1) / Math.log(p2 / p1);
    const y = y2 * (TARGET / p2) ** b;
    console.log(
      `  ${label}, power law through the two largest runs: b = ln(${show(y2)} / ${show(y1)}) / ln(${n(p2)} / ${n(p1)}) = ${b.toFixed(3)}; ` +
        `${show(y2)} × (${n(TARGET)} / ${n(p2)})^${b.toFixed(3)} = ${show(y)}`,
    );
    return y;
  };
  const seconds = fit('time', small.wallMs / 1000, big.wallMs / 1000, (x) => `${x.toFixed(1)} s`);
  console.log(`    = ${hours(seconds)}, ${(TARGET / seconds).toFixed(1)} pages/s`);
  fit('database', Math.max(1, dbBytes(small)), Math.max(1, dbBytes(big)), bytes);
  const audits = (r: SizeResult) => rolePeakMiB(r.peaks, 'audits').mib;
  if (Number.isFinite(audits(small)) && Number.isFinite(audits(big))) {
    const slope = (audits(big) - audits(small)) / (p2 - p1);
    console.log(
      `  audit worker peak RSS, linear in pages: ${n(audits(big))} MiB + (${n(TARGET)} − ${n(p2)}) × ` +
        `${(slope * 1024).toFixed(2)} KiB/page = ${n(audits(big) + (TARGET - p2) * slope)} MiB`,
    );
  }
}

function hours(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(0)} s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return h ? `${h} h ${m} min` : `${m} min`;
}
