import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

/** A page a step takes: its URL and depth (null: reached only from a sitemap). */
export interface ClaimedPage {
  url: string;
  depth: number | null;
}

type Trx = Knex.Transaction;

/**
 * The pages a step takes, breadth first: the shallowest level queued, split across the window's
 * places not taken by steps in flight, at most `stepPages`, and no more than the budget left once the steps in
 * flight are counted as if every page they hold answers HTML. A level waits while a step of a
 * shallower level than the one before it is in flight (it could still find these pages shallower),
 * and sitemap-only pages wait until every linked page is done. A retried step gets its own pages
 * back. An empty answer with steps in flight means "wait"; with none, this phase is done.
 */
export async function claimPages(
  db: Db,
  crawlId: string,
  step: number,
  limits: { stepPages: number; window: number },
): Promise<ClaimedPage[]> {
  return db.transaction(async (trx) => {
    const again = await trx('crawl_frontier')
      .where({ crawl_id: crawlId, state: 'claimed', step })
      .orderBy('seq')
      .select('url', 'depth');
    if (again.length > 0) return again as ClaimedPage[];
    // Claims of one crawl take turns: each sees the others' reservations.
    const run = (await trx('crawl_runs')
      .where({ crawl_id: crawlId })
      .forUpdate()
      .first('page_budget', 'html_pages')) as { page_budget: number; html_pages: number } | undefined;
    if (!run) return [];
    const inFlight = await claimedSummary(trx, crawlId);
    const budgetLeft = run.page_budget - run.html_pages - inFlight.pages;
    if (budgetLeft <= 0) {
      if (inFlight.pages === 0) await markOverBudget(trx, crawlId);
      return [];
    }
    const level = await nextLevel(trx, crawlId, inFlight);
    if (level === undefined) return [];
    const queued = await queuedAtLevel(trx, crawlId, level, limits.stepPages * limits.window);
    // Split between the window's free places, so no step is left with a sliver.
    const freePlaces = Math.max(1, limits.window - inFlight.steps);
    const take = Math.min(limits.stepPages, budgetLeft, Math.max(1, Math.ceil(queued / freePlaces)));
    const rows = await trx.raw<{ rows: ClaimedPage[] }>(
      `UPDATE crawl_frontier SET state = 'claimed', step = :step
         WHERE crawl_id = :crawlId AND url IN (
           SELECT url FROM crawl_frontier
            WHERE crawl_id = :crawlId AND state = 'queued' AND ${level === null ? 'depth IS NULL' : 'depth = :level'}
            ORDER BY seq LIMIT :take)
       RETURNING url, depth, seq`,
      { step, crawlId, take, ...(level === null ? {} : { level }) },
    );
    return (rows.rows as (ClaimedPage & { seq: string })[])
      .sort((a, b) => Number(a.seq) - Number(b.seq))
      .map(({ url, depth }) => ({ url, depth }));
  });
}

interface InFlight {
  pages: number;
  steps: number;
  /** Shallowest depth held by a step in flight or a shell being rendered (null: none with a depth). */
  minDepth: number | null;
}

async function claimedSummary(trx: Trx, crawlId: string): Promise<InFlight> {
  const row = (await trx('crawl_frontier')
    .where({ crawl_id: crawlId, state: 'claimed' })
    .first(
      trx.raw('count(*)::int AS pages'),
      trx.raw('count(DISTINCT step)::int AS steps'),
      trx.raw('min(depth) AS min_depth'),
    )) as { pages: number; steps: number; min_depth: number | null };
  // A shell being rendered still finds pages one level below its own, as a claimed page does.
  const rendering = (await trx('crawl_frontier')
    .where({ crawl_id: crawlId, state: 'rendering' })
    .first(trx.raw('min(depth) AS min_depth'))) as { min_depth: number | null };
  const depths = [row.min_depth, rendering.min_depth].filter((d): d is number => d !== null);
  return { pages: row.pages, steps: row.steps, minDepth: depths.length > 0 ? Math.min(...depths) : null };
}

/** The level to take from: undefined when nothing may be taken now. */
async function nextLevel(trx: Trx, crawlId: string, inFlight: InFlight): Promise<number | null | undefined> {
  const row = (await trx('crawl_frontier')
    .where({ crawl_id: crawlId, state: 'queued' })
    .first(trx.raw('min(depth) AS min_depth'), trx.raw('bool_or(depth IS NULL) AS sitemap_only'))) as {
    min_depth: number | null;
    sitemap_only: boolean | null;
  };
  if (row.min_depth !== null) {
    if (inFlight.minDepth !== null && inFlight.minDepth < row.min_depth - 1) return undefined;
    return row.min_depth;
  }
  if (row.sitemap_only && inFlight.minDepth === null) return null;
  return undefined;
}

async function queuedAtLevel(trx: Trx, crawlId: string, level: number | null, cap: number): Promise<number> {
  const result = await trx.raw<{ rows: { n: number }[] }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM crawl_frontier
        WHERE crawl_id = :crawlId AND state = 'queued' AND ${level === null ? 'depth IS NULL' : 'depth = :level'}
        LIMIT :cap) AS level`,
    { crawlId, cap, ...(level === null ? {} : { level }) },
  );
  return result.rows[0]!.n;
}

/** The budget is spent: every page still queued is link-checked instead (budget_exhausted). */
async function markOverBudget(trx: Trx, crawlId: string): Promise<void> {
  const marked = await trx('crawl_frontier')
    .where({ crawl_id: crawlId, state: 'queued' })
    .update({ state: 'over_budget' });
  if (marked > 0) await trx('crawl_runs').where({ crawl_id: crawlId }).update({ budget_exhausted: true });
}
