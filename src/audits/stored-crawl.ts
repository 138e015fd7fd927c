import type { Db } from '../db/knex';
import { loadStoredSnapshot, storedPageBodies } from '../crawl/durable/stored-snapshot';
import type { FinishedCrawl } from './produce';

/** A durable crawl's stored facts as the analysis takes them: the snapshot, its pages' bodies streamed in order. */
export async function storedCrawl(db: Db, crawlId: string): Promise<FinishedCrawl> {
  const { snapshot, startedAt } = await loadStoredSnapshot(db, crawlId);
  return { snapshot, bodies: storedPageBodies(db, crawlId), crawlDurationMs: Date.now() - startedAt.getTime() };
}
