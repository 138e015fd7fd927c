import type { Clock } from '../clock';
import type { Db } from '../db/knex';

/**
 * Projects a running attempt's crawl progress (pages crawled so far) to its audit row, at most once
 * per `minIntervalMs`. Best effort: progress is informational, so a failed write is dropped and never
 * delays or fails the crawl; the next report writes the newer figure.
 */
export function createProgressRecorder(
  deps: { db: Db; clock: Clock },
  auditId: string,
  minIntervalMs = 2_000,
): (pagesCrawled: number) => void {
  let lastWriteAt = -Infinity;
  let writing = false;
  return (pagesCrawled) => {
    const now = deps.clock.now().getTime();
    if (writing || now - lastWriteAt < minIntervalMs) return;
    lastWriteAt = now;
    writing = true;
    void deps
      .db('audits')
      .where({ id: auditId, status: 'running' })
      .update({ pages_crawled: pagesCrawled })
      .catch(() => undefined)
      .finally(() => {
        writing = false;
      });
  };
}

/** The crawl's progress reports carry `pagesCrawled`; other phases (analysis, storing) do not. */
export function pagesCrawledOf(progress: unknown): number | undefined {
  const pages = (progress as { pagesCrawled?: unknown } | null | undefined)?.pagesCrawled;
  return typeof pages === 'number' && Number.isInteger(pages) && pages >= 0 ? pages : undefined;
}
