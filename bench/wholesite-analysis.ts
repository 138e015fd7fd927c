import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { ANALYZERS, onePart, type CrawlSnapshot, type PagePart } from '../src/analyzers';
import { decodePart, encodePart, observePart } from '../src/analyzers/observed-part';
import { stylesheetTexts } from '../src/analyzers/parse';
import type { Analyzer } from '../src/analyzers/types';
import { analyzeCrawl } from '../src/audits/live-engine';
import type { AuditRow } from '../src/audits/repository';
import type { Config } from '../src/config';
import { readBodies, readSnapshot, writeCrawl } from './wholesite-analysis-crawl';

/**
 * The analysis of a whole-site crawl alone, in a process started with the audit worker's flags
 * (processes/worker-process.ts): what it holds per page and its peak RSS, without the crawl, Postgres
 * or Temporal around it (docs/architecture.md, "Durable crawl", Memory).
 *
 *   npm exec -- node --import tsx bench/wholesite-analysis.ts crawl 100000 /tmp/crawl-100k
 *   npm exec -- node --import tsx bench/wholesite-analysis.ts run /tmp/crawl-100k [--per-page | --phases | --trace | --parts]
 *
 * `crawl` crawls the generated site of bench:wholesite into files (bench/wholesite-analysis-crawl.ts).
 * `run` analyses them in a child process with the worker's flags and prints its peak RSS, the peak
 * per phase and the analyzer finishing when the RSS rose most, and hashes of the audit JSON, the page
 * rows and the finding-URL rows (the same before and after a memory change means the same results).
 * `--per-page` instead measures, with forced collections, what the loaded page metadata holds per page
 * and how much of it each field is; `--phases` the live heap at each step and what each finish leaves
 * uncollected. `--trace` prints a line as each finish starts and the memory as it ends: run the child
 * (`analyse` instead of `run`) under `node --trace-gc` and line-buffered output (`stdbuf -oL`) to see
 * which analyzer each full collection fell in, and how much it left live. `--parts` observes the pages
 * in parts first, as the workers do once a crawl ends, and the analysis takes the parts (observedParts).
 */
const WORKER_FLAGS = ['--max-semi-space-size=16', '--heap-growing-percent=50', '--expose-gc'];
const FIXED = new Date('2026-01-01T00:00:00Z');

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const rss = () => process.memoryUsage().rss;

/** The peak RSS seen per phase (sampled between slices of work) and the finish that raised it most. */
class Peaks {
  phase = 'loading';
  readonly byPhase = new Map<string, number>();
  readonly finishRise = new Map<string, number>();

  /** `trace`: a line when each finish starts (beside --trace-gc's) and the memory when it ends. */
  constructor(private readonly trace: boolean) {}

  sample(): void {
    this.byPhase.set(this.phase, Math.max(this.byPhase.get(this.phase) ?? 0, rss()));
  }

  /** Wraps every analyzer's finish (the registry's objects) to see the RSS before and after it. */
  watchFinishes(list: readonly Analyzer[]): void {
    for (const analyzer of list) {
      const finish = analyzer.finish.bind(analyzer);
      (analyzer as { finish: Analyzer['finish'] }).finish = (snapshot, observed) => {
        this.phase = 'finishing';
        if (this.trace) fs.writeSync(1, `BEGIN ${analyzer.code}\n`);
        const before = rss();
        try {
          return finish(snapshot, observed);
        } finally {
          this.sample();
          this.finishRise.set(analyzer.code, rss() - before);
          if (this.trace) {
            const m = process.memoryUsage();
            const parts = [m.rss, m.heapTotal, m.heapUsed, m.external, m.arrayBuffers].map(mib);
            console.log(
              `${analyzer.code}: rss ${parts[0]}, heap ${parts[1]} (used ${parts[2]}), external ${parts[3]} (buffers ${parts[4]})`,
            );
          }
        }
      };
    }
  }
}

/**
 * `--parts`: the pages observed first in parts of 500 (as observePagesPart does on the workers; the
 * encoded parts are kept in memory, about 150 bytes a page), then the analysis takes them as runAudit
 * does: the hashes must be those of the analysis that observes every page itself.
 */
async function observedParts(dir: string, snapshot: CrawlSnapshot, peaks: Peaks): Promise<AsyncIterable<PagePart>> {
  peaks.phase = 'observing parts';
  const encoded: Buffer[] = [];
  const bodies = readBodies(dir)[Symbol.asyncIterator]();
  for (let at = 0; at < snapshot.pages.length; at += PART_PAGES) {
    const pages = (async function* () {
      for (let i = at; i < Math.min(at + PART_PAGES, snapshot.pages.length); i++)
        yield { ...snapshot.pages[i]!, body: (await bodies.next()).value as string | null };
    })();
    encoded.push(encodePart(await observePart(pages, stylesheetTexts(snapshot), ANALYZERS)));
    peaks.sample();
  }
  return (async function* () {
    for (const bytes of encoded) yield { observed: decodePart(bytes) };
  })();
}
const PART_PAGES = 500;

async function runAnalysis(dir: string, trace: boolean, inParts: boolean): Promise<void> {
  const peaks = new Peaks(trace);
  const timer = setInterval(() => peaks.sample(), 20);
  peaks.watchFinishes(ANALYZERS);
  const started = performance.now();
  const snapshot = await readSnapshot(dir);
  peaks.sample();
  const parts = inParts ? await observedParts(dir, snapshot, peaks) : onePart(readBodies(dir));
  peaks.phase = inParts ? 'taking parts' : 'observing';
  const row = { id: 'bench', domain: snapshot.origin, mode: 'live', tier: 'enterprise', created_at: FIXED };
  const config = { pageBudgets: { enterprise: 1_000_000 } } as unknown as Config;
  const { audit, facts } = await analyzeCrawl(
    config,
    row as AuditRow,
    { snapshot, parts, crawlDurationMs: 0 },
    {
      heartbeat: () => peaks.sample(),
      signal: new AbortController().signal,
      finalAttempt: true,
      clock: { now: () => FIXED },
      startedAt: FIXED,
    },
  );
  peaks.phase = 'facts';
  const hash = (items: Iterable<unknown>) => {
    const h = crypto.createHash('sha256');
    let n = 0;
    for (const item of items) (h.update(JSON.stringify(item) + '\n'), n++);
    return `${h.digest('hex').slice(0, 16)} (${n})`;
  };
  const hashes = { audit: hash([audit]), pages: hash(facts!.pages), findingUrls: hash(facts!.findingUrls) };
  peaks.sample();
  clearInterval(timer);
  const rises = [...peaks.finishRise].sort((a, b) => b[1] - a[1]).slice(0, 6);
  console.log(`pages ${snapshot.pages.length}, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(
    `peak RSS ${mib(statusKiB('VmHWM') * 1024)} (VmHWM); by phase: ${[...peaks.byPhase].map(([p, b]) => `${p} ${mib(b)}`).join(', ')}`,
  );
  console.log(`finishes that raised the RSS most: ${rises.map(([c, b]) => `${c} +${mib(b)}`).join(', ')}`);
  console.log(`hashes: audit ${hashes.audit}, page rows ${hashes.pages}, finding-URL rows ${hashes.findingUrls}`);
}

function statusKiB(field: string): number {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
}

/** Live heap after a full collection. */
function liveHeap(): number {
  (globalThis as { gc?: () => void }).gc!();
  return v8.getHeapStatistics().used_heap_size;
}

/** What the loaded metadata holds per page, and what each field adds, by dropping it and collecting. */
async function perPage(dir: string): Promise<void> {
  const empty = liveHeap();
  const snapshot = await readSnapshot(dir);
  const pages = snapshot.pages as unknown as Array<Record<string, unknown>>;
  const n = pages.length;
  let live = liveHeap();
  console.log(`${n} pages: ${mib(live - empty)} live, ${((live - empty) / n).toFixed(0)} bytes a page`);
  const fields = ['headers', 'foundOn', 'redirectChain', 'url', 'finalUrl'];
  for (const field of fields) {
    for (const page of pages) page[field] = field.endsWith('Url') || field === 'url' ? '' : null;
    const now = liveHeap();
    console.log(`  ${field}: ${((live - now) / n).toFixed(0)} bytes a page`);
    live = now;
  }
  for (let i = 0; i < n; i++) pages[i] = {};
  const now = liveHeap();
  console.log(`  the page objects themselves (other fields): ${((live - now) / n).toFixed(0)} bytes a page`);
}

/**
 * With forced collections: the live heap after loading, before the first finish and after the
 * analysis, and what each analyzer's finish leaves on the heap uncollected when it returns (what it
 * built while finishing, an estimate of what it adds to the peak).
 */
async function phases(dir: string, rest: string[]): Promise<void> {
  const points: Array<[string, number]> = [['empty', liveHeap()]];
  const built = new Map<string, number>();
  /** The live heap as each finish starts: every page's metadata plus that analyzer's observations. */
  const held = new Map<string, number>();
  for (const analyzer of ANALYZERS) {
    const finish = analyzer.finish.bind(analyzer);
    (analyzer as { finish: Analyzer['finish'] }).finish = (snapshot, observed) => {
      if (built.size === 0) points.push(['observed, before finishing', liveHeap()]);
      const before = liveHeap();
      const outcome = finish(snapshot, observed);
      built.set(analyzer.code, v8.getHeapStatistics().used_heap_size - before);
      held.set(analyzer.code, before);
      return outcome;
    };
  }
  const snapshot = await readSnapshot(dir);
  points.push(['loaded', liveHeap()]);
  const row = { id: 'bench', domain: snapshot.origin, mode: 'live', tier: 'enterprise', created_at: FIXED };
  const config = { pageBudgets: { enterprise: 1_000_000 } } as unknown as Config;
  const produced = await analyzeCrawl(
    config,
    row as AuditRow,
    { snapshot, parts: onePart(readBodies(dir)), crawlDurationMs: 0 },
    {
      heartbeat: () => undefined,
      signal: new AbortController().signal,
      finalAttempt: true,
      clock: { now: () => FIXED },
      startedAt: FIXED,
    },
  );
  points.push(['analysed (audit and facts held)', liveHeap()]);
  const index = new Set<string>();
  for (const page of produced.facts!.pages) index.add(page.url);
  points.push(['page facts gone over once', liveHeap()]);
  console.log(`live heap: ${points.map(([what, bytes]) => `${what} ${mib(bytes)}`).join('; ')}`);
  const top = [...built].sort((a, b) => b[1] - a[1]).slice(0, 15);
  console.log(`left on the heap by a finish: ${top.map(([c, b]) => `${c} ${mib(b)}`).join(', ')}`);
  const heaviest = [...held].sort((a, b) => b[1] - a[1]).slice(0, rest.includes('--all') ? held.size : 10);
  console.log(`live as a finish starts: ${heaviest.map(([c, b]) => `${c} ${mib(b)}`).join(', ')}`);
}

async function main(argv: string[]): Promise<void> {
  const [mode, ...rest] = argv;
  if (mode === 'crawl') {
    const pages = await writeCrawl(Number(rest[0]), rest[1]!);
    console.log(`${pages} pages written to ${rest[1]}`);
  } else if (mode === 'run') {
    // The worker's flags and malloc arenas; --expose-gc only where collections are forced.
    const flags =
      rest.includes('--per-page') || rest.includes('--phases') ? ['--expose-gc', ...WORKER_FLAGS] : WORKER_FLAGS;
    const child = spawnSync(process.execPath, [...flags, '--import', 'tsx', __filename, 'analyse', ...rest], {
      stdio: 'inherit',
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    });
    process.exitCode = child.status ?? 1;
  } else if (mode === 'analyse') {
    // The child of `run`, with the worker's flags.
    const dir = path.resolve(rest[0]!);
    if (rest.includes('--per-page')) await perPage(dir);
    else if (rest.includes('--phases')) await phases(dir, rest);
    else await runAnalysis(dir, rest.includes('--trace'), rest.includes('--parts'));
  } else {
    throw new Error(
      'usage: wholesite-analysis.ts crawl <pages> <dir> | run <dir> [--per-page | --phases | --trace | --parts]',
    );
  }
}

void main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
