import type { Db } from '../db/knex';
import { storedRenderedChecks } from '../crawl/durable/render-checks';
import { storedPageParts } from '../crawl/durable/observed-parts';
import { loadStoredSnapshot } from '../crawl/durable/stored-snapshot';
import type { FinishedCrawl } from './produce';

/**
 * A durable crawl's stored facts as the analysis takes them: the snapshot, its pages in order (the
 * parts observed beforehand, and the other pages' bodies streamed), and the rendered-DOM checks of the pages it rendered with `render: "all"`. `wait` runs
 * each read until the database answers (an outage delays the analysis).
 */
export async function storedCrawl(
  db: Db,
  crawlId: string,
  wait: <T>(operation: () => Promise<T>) => Promise<T>,
  /** When its pages began to be observed in parts, if they were: the crawl ended there, not when the analysis takes it. */
  endedAt?: Date,
): Promise<FinishedCrawl> {
  const { snapshot, startedAt } = await wait(() => loadStoredSnapshot(db, crawlId));
  return {
    snapshot,
    parts: storedPageParts(db, crawlId, snapshot.pages.length, wait),
    renderedChecks: storedRenderedChecks(db, crawlId, wait),
    crawlDurationMs: (endedAt ?? new Date()).getTime() - startedAt.getTime(),
  };
}
