import type { RenderedPageChecks } from '../../analyzers/rendered-facts';
import type { Db } from '../../db/knex';
import { keysetRows, type Wait } from './keyset-read';

/** Pages' checks read per query: a few KiB each at most (20 elements and 20 errors a page). */
const READ_CHUNK = 500;

/**
 * The rendered-DOM checks a crawl with `render: "all"` stored (`crawl_pages.rendered_checks`, written
 * by render-commit.ts), in crawl order, a chunk at a time (keyset on seq; each read through `wait`):
 * the analysis folds them into findings without holding a site's checks at once. None for a crawl
 * that rendered only application shells.
 */
export async function* storedRenderedChecks(db: Db, crawlId: string, wait?: Wait): AsyncGenerator<RenderedPageChecks> {
  const rows = keysetRows<{ seq: string; rendered_checks: string }>({
    from: () => db('crawl_pages').where('crawl_id', crawlId).whereNotNull('rendered_checks'),
    columns: ['rendered_checks'],
    chunk: READ_CHUNK,
    wait,
  });
  for await (const row of rows) yield JSON.parse(row.rendered_checks) as RenderedPageChecks;
}
