import { TIER_RULES } from '../accounts/tiers';
import type { Db } from '../db/knex';
import type { Mode, Tier } from '../schemas/audit';

// Fixed part of a live audit: robots.txt, DNS and TLS probes, sitemaps, scoring, storing.
const LIVE_SETUP_MS = 3_000;
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
 * Expected completion: the audits already in flight drain at the measured rate, then this one
 * runs. Test audits are synthetic (a short constant); live audits take the setup plus the tier's
 * page budget at the measured crawl speed (an upper bound for sites smaller than the budget).
 */
export function estimateCompletion(
  mode: Mode,
  tier: Tier,
  from: Date,
  msPerPage: number,
  backlog: Backlog = IDLE,
): Date {
  const runMs = mode === 'test' ? TEST_RUN_MS : LIVE_SETUP_MS + TIER_RULES[tier].pageBudget * msPerPage;
  return new Date(from.getTime() + Math.round(backlogWaitMs(mode, backlog) + runMs));
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
