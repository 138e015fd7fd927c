import { createLiveEngine } from '../src/audits/live-engine';
import type { AuditRow } from '../src/audits/repository';
import { syntheticAudit } from '../src/audits/synthetic';
import { assertValidAuditJson } from '../src/audits/validate-audit';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { validateBranding, type Branding } from '../src/reports/branding';
import { renderAuditReport, type RenderOptions } from '../src/reports/pdf';
import { collectAfterRender } from '../src/reports/pdf/memory';
import type { AuditJson, Tier } from '../src/schemas/audit';
import { serveGeneratedSite } from './generated-site';
import { tinyPng } from '../test/support/pdf';
import { syntheticInput } from '../test/support/synthetic-input';

/**
 * `npm run bench:report`: render time and size of the PDF report for a synthetic audit (about ten
 * pages), a 500-finding audit, and an audit big enough for about 500 pages; the test-mode sample
 * report; and the audits of a generated 10-page and 500-page site on 127.0.0.1, produced in this
 * process by the live engine (real crawler and analyzers). Each is rendered a few times; the first
 * run (font loading, JIT warm-up) is reported apart from the median of the rest. Baseline for the
 * crawled audits: the crawl+analysis time of that same audit (the engine call), measured here.
 */

const RUNS = Number(process.env.BENCH_REPORT_RUNS || 5);
const generatedAt = new Date('2026-11-21T12:00:00.000Z');

const branding = validateBranding({
  displayName: 'Acme Digital',
  logo: tinyPng(64, 64),
  primaryColor: '#e4572e',
  footerText: 'Confidential — prepared by Acme Digital',
  contactLine: 'hello@acme.example',
});

function base(tier: 'pro' | 'enterprise'): AuditJson {
  return syntheticAudit(
    syntheticInput('https://www.shop-7.co.uk', {
      auditId: 'aud_01JBENCHREPORT0000000000000',
      workspaceId: 'ws_bench',
      tier,
    }),
  );
}

/** `base` with its findings repeated up to n (fresh ids, distinct URLs); validated against the schema. */
function withFindings(audit: AuditJson, n: number): AuditJson {
  const findings = Array.from({ length: n }, (_, i) => {
    const f = audit.findings[i % audit.findings.length]!;
    return {
      ...f,
      id: `fnd_${i.toString(36)}x`,
      urls: f.urls.map((u, j) => (j === 0 ? `${u}${u.endsWith('/') ? '' : '/'}p${i}` : u)),
    };
  });
  const out = { ...audit, findings };
  assertValidAuditJson(out);
  return out;
}

/** Page objects in the file (page dictionaries are not compressed by pdfkit). */
function pageCount(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
}

interface Rendered {
  pdf: Buffer;
  first: number;
  median: number;
}

async function render(
  audit: AuditJson,
  brand: Branding | null,
  runs: number,
  opts: RenderOptions = {},
): Promise<Rendered> {
  const times: number[] = [];
  let pdf: Buffer = Buffer.alloc(0);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    pdf = await renderAuditReport(audit, brand, { generatedAt, ...opts });
    times.push(performance.now() - t0);
  }
  const [first, ...rest] = times;
  rest.sort((a, b) => a - b);
  const median = rest.length ? rest[Math.floor(rest.length / 2)]! : first!;
  return { pdf, first: first!, median };
}

function line(label: string, audit: AuditJson, r: Rendered): string {
  return (
    `${label.padEnd(34)} findings=${String(audit.findings.length).padStart(5)}  pages=${String(pageCount(r.pdf)).padStart(4)}  ` +
    `size=${(r.pdf.length / 1024).toFixed(0).padStart(6)} KiB  first=${r.first.toFixed(0).padStart(5)} ms  median=${r.median.toFixed(0).padStart(5)} ms`
  );
}

async function measure(label: string, audit: AuditJson, opts: RenderOptions = {}): Promise<void> {
  console.log(line(label, audit, await render(audit, branding, RUNS, opts)));
}

/** A live audit row for the engine, as the trigger would insert it. */
function liveRow(domain: string, tier: Tier): AuditRow {
  const now = new Date();
  return {
    id: `aud_01JBENCHREPORTLIVE${tier.toUpperCase().padEnd(9, '0')}`,
    workspace_id: 'ws_bench',
    account_id: 'acc_bench',
    mode: 'live',
    domain,
    site_key: null,
    tier,
    status: 'running',
    score: null,
    grade: null,
    charged: true,
    webhook_url: null,
    attempts: 1,
    error_code: null,
    error_message: null,
    result_json: null,
    estimated_completion: null,
    created_at: now,
    started_at: now,
    completed_at: null,
    failed_at: null,
    pages_crawled: null,
    run_generation: 0,
  };
}

/**
 * One live audit of a generated `total`-page site by the engine the worker runs (real crawl, every
 * analyzer, scoring), timed around the engine call; then its report rendered RUNS times branded
 * and once unbranded, with the render median set against that audit's own duration.
 */
async function measureCrawled(total: number, tier: Tier): Promise<void> {
  const site = await serveGeneratedSite(total);
  try {
    const engine = createLiveEngine(loadConfig({ ...process.env, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }));
    const row = liveRow(site.origin, tier);
    const started = performance.now();
    const { audit } = await engine.runLive(row, {
      startedAt: row.started_at!,
      clock: systemClock,
      heartbeat: () => undefined,
      signal: new AbortController().signal,
      finalAttempt: true,
    });
    const auditMs = performance.now() - started;
    assertValidAuditJson(audit);
    const label = `crawled ${total}-page site (${tier})`;
    const branded = await render(audit, branding, RUNS);
    const plain = await render(audit, null, 1);
    console.log(
      `${label}: ${audit.crawl.pages_crawled} pages crawled, audit (crawl+analysis) ${auditMs.toFixed(0)} ms`,
    );
    console.log(line('  branded', audit, branded));
    console.log(line('  no branding (1 run)', audit, plain));
    console.log(
      `  render = ${(branded.median / auditMs).toFixed(2)}× the audit's own crawl+analysis time (median ${branded.median.toFixed(0)} ms / ${auditMs.toFixed(0)} ms)`,
    );
  } finally {
    await site.close();
  }
}

/**
 * `npm run bench:report -- --memory [N]`: N reports rendered back to back as the report worker
 * renders them (a stored audit JSON parsed, branded or not, sample in test mode), different audits
 * each time; resident memory and heap every 25 renders, and the growth after the warm-up (the
 * first 25). Run as `node --expose-gc --import tsx bench/report.ts --memory` to collect after each
 * render as the report worker does; without the flag it shows memory without that collection.
 */
async function memoryOverRenders(n: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const sample = () => {
    const m = process.memoryUsage();
    return { rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20, external: m.external / 2 ** 20 };
  };
  console.log(
    `report worker memory over ${n} renders (node ${process.version}${gc ? ', collected after each render' : ', no --expose-gc: never collected explicitly'})`,
  );
  const started = performance.now();
  let warm = sample();
  for (let i = 1; i <= n; i++) {
    const stored = JSON.stringify(
      syntheticAudit(
        syntheticInput(`https://www.shop-${i}.example.com`, {
          auditId: 'aud_01JBENCHREPORT0000000000000',
          workspaceId: 'ws_bench',
          tier: i % 3 === 0 ? 'enterprise' : 'pro',
        }),
      ),
    );
    await renderAuditReport(JSON.parse(stored) as AuditJson, i % 2 ? branding : null, { sample: true });
    // As the report worker does after each render (a no-op unless node runs with --expose-gc).
    collectAfterRender();
    if (i % 25 === 0 || i === n) {
      const m = sample();
      if (i === 25) warm = m;
      console.log(
        `  ${String(i).padStart(4)} renders  ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  rss ${m.rss.toFixed(0).padStart(4)} MiB  heap ${m.heap.toFixed(0).padStart(4)} MiB  external ${m.external.toFixed(0).padStart(3)} MiB`,
      );
    }
  }
  const end = sample();
  console.log(
    `rss after warm-up (25 renders) ${warm.rss.toFixed(0)} MiB → after ${n}: ${end.rss.toFixed(0)} MiB (${end.rss - warm.rss >= 0 ? '+' : ''}${(end.rss - warm.rss).toFixed(0)} MiB)`,
  );
}

async function main(): Promise<void> {
  const memoryFlag = process.argv.indexOf('--memory');
  if (memoryFlag >= 0) return memoryOverRenders(Number(process.argv[memoryFlag + 1] || 250));
  console.log(`report render, ${RUNS} runs each (node ${process.version})`);
  await measure('~10 pages (10 findings)', withFindings(base('pro'), 10));
  await measure('synthetic audit (enterprise)', base('enterprise'));
  await measure('500 findings', withFindings(base('enterprise'), 500));
  await measure('~500 pages', withFindings(base('enterprise'), 2100));
  await measure('test mode sample (pro)', base('pro'), { sample: true });
  await measureCrawled(10, 'pro');
  await measureCrawled(500, 'team');
  const mem = process.memoryUsage();
  console.log(`rss=${(mem.rss / 2 ** 20).toFixed(0)} MiB`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
