import type { Db } from '../db/knex';
import { DEFAULT_PAGE_BUDGETS, type PageBudgets } from '../page-budgets';
import type { Mode, Tier } from '../schemas/audit';
import { DEFAULT_MS_PER_PAGE, currentSpeeds, type MeasuredSpeeds } from './crawl-speed';
import type { AuditProgress } from './progress';

// Fixed parts of a live audit: before the crawl robots.txt, DNS and TLS probes, sitemaps; after it
// the analysis's fixed cost (its per-page cost is measured: MeasuredSpeeds.analysisMsPerPage);
// with the browser stage the renders of the sample after that.
const LIVE_SETUP_MS = 1_000;
export const LIVE_FINISH_MS = 2_000;
const RENDERING_MS = 30_000;
// A running audit is never estimated to end sooner than this from now (an overdue phase).
const MIN_LEFT_MS = 1_000;
// A synthetic test audit, with margin: well under a second on an idle stack.
const TEST_RUN_MS = 2_000;

/** The audits of one mode ahead of a new trigger, and how fast that mode's audits have been finishing. */
export interface Backlog {
  /** Audits queued or running. */
  inFlight: number;
  /** Audits that finished (completed or failed) per second over the last BACKLOG_WINDOW_MS. */
  finishedPerS: number;
}

export const IDLE: Backlog = { inFlight: 0, finishedPerS: 0 };

// While audits are in flight but none finished lately (a burst on a stack that was idle), the
// backlog drains at least this fast: conservative figures for this service's worker.
const FALLBACK_PER_S: Record<Mode, number> = { test: 10, live: 1 };

/**
 * Pages a queued audit is expected to crawl, within its budget: budgets reach a million pages, so
 * the budget itself would promise most customers an hour-long wait for a site of a few hundred
 * pages. Once the audit runs, its estimate follows the pages it actually discovers.
 */
const EXPECTED_SITE_PAGES = 200;

/**
 * Expected completion: the audits already in flight drain at the measured rate, then this one
 * runs. Test audits are synthetic (a short constant); live audits take the setup plus a typical
 * site (EXPECTED_SITE_PAGES, within the tier's budget) at the measured crawl and analysis speeds.
 * `pageBudgets`: the budgets audits run with, config.pageBudgets (PAGE_BUDGETS overrides the
 * defaults, docs/operations.md).
 */
export function estimateCompletion(
  mode: Mode,
  tier: Tier,
  from: Date,
  speeds: MeasuredSpeeds,
  backlog: Backlog = IDLE,
  pageBudgets: PageBudgets = DEFAULT_PAGE_BUDGETS,
): Date {
  const budget = pageBudgets[tier];
  const runMs =
    mode === 'test'
      ? TEST_RUN_MS
      : LIVE_SETUP_MS +
        liveRunLeftMs(
          { phase: 'crawling', pagesCrawled: 0, pagesDiscovered: Math.min(budget, EXPECTED_SITE_PAGES) },
          budget,
          speeds,
        );
  return new Date(from.getTime() + Math.round(backlogWaitMs(mode, backlog) + runMs));
}

/**
 * The one rule for what a live run has left from a point in it: while crawling (or checking), the
 * pages discovered and not crawled yet, within the page budget, at `msPerPage`, then the analysis of
 * every page the crawl will have (its fixed cost plus `analysisMsPerPage` a page: 100,000 pages take
 * minutes); from the analysis's start, the analysis of the pages crawled; while rendering, its fixed cost.
 */
export function liveRunLeftMs(progress: AuditProgress, pageBudget: number, speeds: MeasuredSpeeds): number {
  if (progress.phase === 'rendering') return RENDERING_MS;
  const analysisMs = (pages: number) => pages * Math.max(0, speeds.analysisMsPerPage) + LIVE_FINISH_MS;
  if (progress.phase === 'analyzing') return analysisMs(progress.pagesCrawled);
  const pagesTotal = Math.max(progress.pagesCrawled, Math.min(progress.pagesDiscovered, pageBudget));
  return (pagesTotal - progress.pagesCrawled) * Math.max(0, speeds.msPerPage) + analysisMs(pagesTotal);
}

/** What a running audit's estimate needs beside its row: the budgets it runs within and the measured analysis speed. */
export interface RunningEstimateInputs {
  pageBudgets: PageBudgets;
  analysisMsPerPage: number;
}

/** The inputs of estimateRunningCompletion on this deployment (the speed is read at most every 30 s). */
export async function runningEstimateInputs(db: Db, pageBudgets: PageBudgets): Promise<RunningEstimateInputs> {
  return { pageBudgets, analysisMsPerPage: (await currentSpeeds(db)).analysisMsPerPage };
}

/**
 * Expected completion of a running live audit at `now`: the crawl goes on at the rate this attempt
 * has measured (time since it started / pages crawled), the analysis at the deployment's measured
 * rate, and the phases whose length is known from their start count from when they began; never in
 * the past, however overdue.
 */
export function estimateRunningCompletion(
  tier: Tier,
  progress: AuditProgress,
  times: { attemptStartedAt: Date; phaseStartedAt: Date },
  now: Date,
  inputs: RunningEstimateInputs,
): Date {
  const elapsedMs = Math.max(0, now.getTime() - times.attemptStartedAt.getTime());
  const msPerPage = progress.pagesCrawled > 0 ? elapsedMs / progress.pagesCrawled : DEFAULT_MS_PER_PAGE;
  const fixedPhase = progress.phase === 'analyzing' || progress.phase === 'rendering';
  const from = fixedPhase ? Math.min(times.phaseStartedAt.getTime(), now.getTime()) : now.getTime();
  const speeds = { msPerPage, analysisMsPerPage: inputs.analysisMsPerPage };
  const at = from + liveRunLeftMs(progress, inputs.pageBudgets[tier], speeds);
  return new Date(Math.round(Math.max(at, now.getTime() + MIN_LEFT_MS)));
}

/** How long the audits in flight take to drain: count / measured rate (or the fallback rate). */
export function backlogWaitMs(mode: Mode, backlog: Backlog): number {
  if (backlog.inFlight <= 0) return 0;
  const perS = backlog.finishedPerS > 0 ? backlog.finishedPerS : FALLBACK_PER_S[mode];
  return (backlog.inFlight / perS) * 1000;
}

/** Completions are counted over this window: long enough to smooth, short enough to follow a burst. */
export const BACKLOG_WINDOW_MS = 15_000;
// Read at most once a second per process, whatever the trigger rate.
const BACKLOG_CACHE_MS = 1_000;

let cache: { at: number; backlogs: Promise<Record<Mode, Backlog>> } | null = null;

/** The current backlog of `mode`, from the audits table (shared by concurrent triggers, refreshed every second). */
export async function currentBacklog(db: Db, mode: Mode): Promise<Backlog> {
  const now = Date.now();
  if (!cache || now - cache.at > BACKLOG_CACHE_MS) {
    const backlogs = readBacklogs(db, new Date(now - BACKLOG_WINDOW_MS));
    cache = { at: now, backlogs };
    // A failed read is not kept: the next trigger asks again.
    backlogs.catch(() => {
      if (cache?.backlogs === backlogs) cache = null;
    });
  }
  return (await cache.backlogs)[mode];
}

async function readBacklogs(db: Db, since: Date): Promise<Record<Mode, Backlog>> {
  const rows: Array<{ mode: Mode; in_flight: string; finished: string }> = await db('audits')
    .where((q) =>
      q.whereIn('status', ['queued', 'running']).orWhere('completed_at', '>=', since).orWhere('failed_at', '>=', since),
    )
    .groupBy('mode')
    .select(
      'mode',
      db.raw(`count(*) filter (where status in ('queued', 'running')) as in_flight`),
      db.raw(
        `count(*) filter (where (status = 'completed' and completed_at >= ?) or (status = 'failed' and failed_at >= ?)) as finished`,
        [since, since],
      ),
    );
  const of = (mode: Mode): Backlog => {
    const row = rows.find((r) => r.mode === mode);
    return row
      ? { inFlight: Number(row.in_flight), finishedPerS: Number(row.finished) / (BACKLOG_WINDOW_MS / 1000) }
      : IDLE;
  };
  return { test: of('test'), live: of('live') };
}
