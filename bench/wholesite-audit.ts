import os from 'node:os';
import { createAccount, createApiKey } from '../src/accounts/repository';
import type { Db } from '../src/db/knex';
import { TreeMemory, type ProcessPeak } from './wholesite-memory';
import { depthOf, serveWholeSite } from './wholesite-site';
import type { WholesiteStack } from './wholesite-stack';

/** What one end-to-end audit of a generated site measured. */
export interface SizeResult {
  /** Pages of the generated site linked from its home page (the five orphans not counted). */
  size: number;
  /** Audit worker processes that shared the audit (`--audit-workers`). */
  auditWorkers: number;
  siteDepth: number;
  auditId: string;
  failure?: string;
  pagesCrawled: number;
  pageBudget: number;
  pagesDiscovered?: number;
  budgetExhausted?: boolean;
  /** The deepest page crawled (clicks from home) and how many were reached only from the sitemap, with where that came from. */
  depth: { max: number | null; sitemapOnly: number; source: string };
  /** The audit JSON's length, and what its column takes in the table (TOAST-compressed). */
  resultJson: { bytes: number; stored: number };
  /** From the trigger call until the bench saw the audit completed (polled every 100 ms). */
  wallMs: number;
  /** The crawl's own part of it (crawl.duration_ms). */
  crawlMs: number;
  /** From completion until its PDF report was stored; null if not within the wait. */
  reportMs: number | null;
  peaks: ProcessPeak[];
  /** Growth of pg_total_relation_size over the tables of the schema, by table. */
  tableGrowth: Map<string, number>;
  served: Record<string, number>;
  /** The machine's 1-minute load average when the audit was triggered and when it completed (others share the cores). */
  load: { start: number; end: number };
  /** Share of the machine's CPU time (all its cores) that was busy, from the trigger to the PDF and in each phase (/proc/stat). */
  machineBusy: { all: number; byPhase: Map<string, number> };
  /**
   * When the audit row showed each phase begin, in ms from the trigger; `analyzing` twice: its parts,
   * then runAudit (each restarts the phase's clock).
   */
  phaseStarts: Array<{ phase: string; atMs: number }>;
}

/** A progress line this often while an audit runs; no change in pages or status this long is a failure. */
const PROGRESS_EVERY_MS = 30_000;
const STALL_MS = 30 * 60_000;

export async function auditSite(stack: WholesiteStack, size: number, log: (line: string) => void): Promise<SizeResult> {
  const { db } = stack;
  const site = await serveWholeSite(size);
  const now = new Date();
  const account = await createAccount(db, { tier: 'enterprise', customQuota: 1_000_000, now });
  const { key } = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'live', now });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const before = await tableSizes(db);
  const memory = new TreeMemory(stack.machinePids);
  let peaks: ProcessPeak[] = [];
  try {
    const loadAtStart = os.loadavg()[0]!;
    const started = performance.now();
    const response = await fetch(`${stack.url}/v1/audits`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ domain: site.origin }),
    });
    if (response.status !== 202) throw new Error(`the trigger answered ${response.status}: ${await response.text()}`);
    const auditId = ((await response.json()) as { audit_id: string }).audit_id;
    const phaseStarts: SizeResult['phaseStarts'] = [];
    const triggeredAt = Date.now() - (performance.now() - started);
    // What the status envelope promises, in s from the trigger: each progress line shows it.
    const estimate = async () => {
      const envelope = await fetch(`${stack.url}/v1/audits/${auditId}`, { headers });
      const body = (await envelope.json()) as { estimated_completion?: string | null };
      return body.estimated_completion ? (Date.parse(body.estimated_completion) - triggeredAt) / 1000 : null;
    };
    const row = await untilSettled(db, auditId, started, log, memory, phaseStarts, estimate);
    const wallMs = performance.now() - started;
    const result: SizeResult = {
      size,
      auditWorkers: stack.auditWorkerCount,
      siteDepth: depthOf(size - 1),
      auditId,
      pagesCrawled: 0,
      pageBudget: 0,
      depth: { max: null, sitemapOnly: 0, source: 'n/a' },
      resultJson: { bytes: 0, stored: 0 },
      wallMs,
      crawlMs: NaN,
      reportMs: null,
      peaks,
      tableGrowth: new Map(),
      served: site.served,
      load: { start: loadAtStart, end: os.loadavg()[0]! },
      machineBusy: { all: NaN, byPhase: new Map() },
      phaseStarts,
    };
    if (row.status !== 'completed') {
      result.failure = `${row.error_code ?? row.status}: ${row.error_message ?? ''}`;
    } else {
      const audit = await fetch(`${stack.url}/v1/audits/${auditId}`, { headers });
      if (audit.status !== 200) throw new Error(`GET /v1/audits/${auditId} answered ${audit.status}`);
      const { crawl } = (await audit.json()) as { crawl: AuditCrawl };
      result.pagesCrawled = crawl.pages_crawled;
      result.pageBudget = crawl.page_budget;
      result.pagesDiscovered = crawl.pages_discovered;
      result.budgetExhausted = crawl.budget_exhausted;
      result.crawlMs = crawl.duration_ms;
      result.depth = await depthCrawled(db, auditId, crawl);
      const stored = await db('audits')
        .where({ id: auditId })
        .first(db.raw('octet_length(result_json) AS bytes'), db.raw('pg_column_size(result_json) AS stored'));
      result.resultJson = { bytes: Number(stored.bytes), stored: Number(stored.stored) };
      // The report worker renders the PDF right after completion: its memory and row count too.
      result.reportMs = await untilReportStored(db, auditId, Math.max(60_000, 3 * wallMs));
    }
    peaks = result.peaks = memory.stop();
    result.machineBusy = memory.machineBusy();
    const after = await tableSizes(db);
    for (const [table, bytes] of after) {
      const grown = bytes - (before.get(table) ?? 0);
      if (grown !== 0) result.tableGrowth.set(table, grown);
    }
    return result;
  } finally {
    if (!peaks.length) memory.stop();
    await site.close();
  }
}

interface AuditCrawl {
  pages_crawled: number;
  page_budget: number;
  pages_discovered?: number;
  budget_exhausted?: boolean;
  duration_ms: number;
  pages: Array<{ depth?: number | null }>;
}

/** From audit_pages when the service stores every crawled URL there, else from the JSON's list if it is complete. */
async function depthCrawled(db: Db, auditId: string, crawl: AuditCrawl): Promise<SizeResult['depth']> {
  const { rows } = (await db.raw(`SELECT to_regclass('audit_pages') IS NOT NULL AS present`)) as {
    rows: Array<{ present: boolean }>;
  };
  if (rows[0]?.present) {
    const row = await db('audit_pages')
      .where({ audit_id: auditId })
      .first(
        db.raw('count(*) AS n'),
        db.raw('max(depth) AS max'),
        db.raw('count(*) FILTER (WHERE depth IS NULL) AS nulls'),
      );
    if (Number(row.n) > 0)
      return { max: row.max === null ? null : Number(row.max), sitemapOnly: Number(row.nulls), source: 'audit_pages' };
  }
  if (crawl.pages.length < crawl.pages_crawled)
    return { max: null, sitemapOnly: 0, source: `n/a: the JSON lists ${crawl.pages.length} of the pages` };
  const depths = crawl.pages.map((p) => p.depth);
  const known = depths.filter((d): d is number => typeof d === 'number');
  return {
    max: known.length ? known.reduce((x, y) => Math.max(x, y)) : null,
    sitemapOnly: depths.length - known.length,
    source: 'the audit JSON',
  };
}

interface AuditRow {
  status: string;
  pages_crawled: number | null;
  error_code: string | null;
  error_message: string | null;
  /** Progress columns a running audit may have (absent from older schemas). */
  progress_phase?: string | null;
  pages_discovered?: number | null;
  phase_started_at?: Date | null;
}

async function untilSettled(
  db: Db,
  auditId: string,
  started: number,
  log: (line: string) => void,
  memory: TreeMemory,
  phaseStarts: SizeResult['phaseStarts'],
  estimate: () => Promise<number | null>,
): Promise<AuditRow> {
  let lastChange = performance.now();
  let lastSeen = '';
  let lastLog = performance.now();
  let lastStart = '';
  for (;;) {
    // Every column, so progress columns show up whichever schema version this is (result_json is null until done).
    const row: AuditRow = await db('audits').where({ id: auditId }).first();
    memory.phase = row.progress_phase ?? row.status;
    // Each crawl step restarts its phase's clock; each activity of the analysis is one to show.
    const start = `${memory.phase} ${memory.phase === 'analyzing' ? row.phase_started_at?.getTime() : ''}`;
    if (start !== lastStart) {
      lastStart = start;
      phaseStarts.push({
        phase: row.status === 'running' ? memory.phase : row.status,
        atMs: performance.now() - started,
      });
    }
    if (row.status === 'completed' || row.status === 'failed') return row;
    const phase = row.progress_phase ? ` (${row.progress_phase})` : '';
    const discovered = row.pages_discovered ? ` of ${row.pages_discovered} discovered` : '';
    const seen = `${row.status}${phase}, ${row.pages_crawled ?? 0} pages crawled${discovered}`;
    if (seen !== lastSeen) [lastSeen, lastChange] = [seen, performance.now()];
    if (performance.now() - lastLog >= PROGRESS_EVERY_MS) {
      lastLog = performance.now();
      const elapsed = ((lastLog - started) / 1000).toFixed(0);
      const promised = await estimate().catch(() => null);
      log(
        `    … ${elapsed} s: ${seen}${promised === null ? '' : `; estimated to complete at ${promised.toFixed(0)} s`}`,
      );
    }
    if (performance.now() - lastChange > STALL_MS)
      return {
        ...row,
        status: 'stalled',
        error_code: 'stalled',
        error_message: `no progress in ${STALL_MS / 60_000} min`,
      };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function untilReportStored(db: Db, auditId: string, waitMs: number): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < waitMs) {
    if (await db('audit_reports').where({ audit_id: auditId }).first('audit_id')) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

/** pg_total_relation_size (heap, TOAST and indexes) of every table of the service's schema. */
export async function tableSizes(db: Db): Promise<Map<string, number>> {
  const { rows } = (await db.raw(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')`,
  )) as { rows: Array<{ name: string; bytes: string }> };
  return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
}
