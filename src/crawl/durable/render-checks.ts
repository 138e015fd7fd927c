import type { RenderedPageChecks } from '../../analyzers/rendered-facts';
import type { Db } from '../../db/knex';

/** Pages' checks read per query: a few KiB each at most (20 elements and 20 errors a page). */
const READ_CHUNK = 500;

/**
 * The rendered-DOM checks a crawl with `render: "all"` stored (`crawl_pages.rendered_checks`, written
 * by render-commit.ts), in crawl order, a chunk at a time (keyset on seq; each read through `wait`):
 * the analysis folds them into findings without holding a site's checks at once. None for a crawl
 * that rendered only application shells.
 */
export async function* storedRenderedChecks(
  db: Db,
  crawlId: string,
  wait: <T>(operation: () => Promise<T>) => Promise<T> = (operation) => operation(),
): AsyncGenerator<RenderedPageChecks> {
  let after = 0;
  for (;;) {
    const from = after;
    const rows = (await wait(() =>
      db('crawl_pages')
        .where('crawl_id', crawlId)
        .andWhere('seq', '>', from)
        .whereNotNull('rendered_checks')
        .orderBy('seq')
        .limit(READ_CHUNK)
        .select('seq', 'rendered_checks'),
    )) as { seq: string; rendered_checks: string }[];
    for (const row of rows) yield JSON.parse(row.rendered_checks) as RenderedPageChecks;
    if (rows.length < READ_CHUNK) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}
