import { ANALYZERS, type PagePart } from '../../analyzers';
import { analyzersKey, decodePart, encodePart, observePart } from '../../analyzers/observed-part';
import { stylesheetTexts } from '../../analyzers/parse';
import type { SnapshotPage } from '../../analyzers/snapshot';
import type { Db } from '../../db/knex';
import type { Wait } from './keyset-read';
import { databaseWait, type StepEnvironment } from './step-context';
import {
  pagesFrom,
  type PagesFrom,
  storedPage,
  storedPageBodies,
  storedPageRows,
  storedStylesheets,
} from './stored-snapshot';
import { StringPool } from './string-pool';

export interface ObservePartInput {
  crawlId: string;
  /** From 0; the part takes the pages from `part × partPages` in crawl order. */
  part: number;
  partPages: number;
}

/**
 * One part of an ended crawl's pages observed by every analyzer, on whichever audit worker took it,
 * and kept for the analysis (docs/architecture.md, "Analysis in parts"). `claimed` is how many pages
 * it observed: none past the crawl's last page. A retry after the part was stored does not redo it.
 */
export async function observeStoredPart(
  db: Db,
  input: ObservePartInput,
  env: Pick<StepEnvironment, 'untilDatabaseAnswers'>,
): Promise<{ claimed: number }> {
  const wait = databaseWait(env);
  const { crawlId, part, partPages } = input;
  const stored = (await wait(() => db('crawl_observed_parts').where({ crawl_id: crawlId, part }).first('pages'))) as
    { pages: number } | undefined;
  if (stored) return { claimed: stored.pages };
  const firstIndex = part * partPages;
  const range = await pagesFrom(db, crawlId, firstIndex, partPages, wait);
  // Past the last page: nothing to read, the stylesheets included.
  if (range.take === 0) return { claimed: 0 };
  const stylesheets = stylesheetTexts({ stylesheets: await storedStylesheets(db, crawlId, wait) });
  const observed = await observePart(pagesWithBodies(db, crawlId, range, wait), stylesheets, ANALYZERS);
  if (observed.pages === 0) return { claimed: 0 };
  await wait(() =>
    db('crawl_observed_parts')
      .insert({
        crawl_id: crawlId,
        part,
        first_index: firstIndex,
        pages: observed.pages,
        analyzers: analyzersKey(ANALYZERS),
        payload: encodePart(observed),
      })
      .onConflict(['crawl_id', 'part'])
      .ignore(),
  );
  return { claimed: observed.pages };
}

async function* pagesWithBodies(db: Db, crawlId: string, range: PagesFrom, wait: Wait): AsyncGenerator<SnapshotPage> {
  const pool = new StringPool();
  for await (const row of storedPageRows(db, crawlId, { body: true, ...range, wait }))
    yield { ...storedPage(row, pool), body: row.body ?? null };
}

/**
 * A stored crawl's `pages` pages as the analysis takes them, in crawl order: each part observed
 * beforehand by the analyzers this code runs, and the bodies of the pages no such part covers (a
 * part not observed, or observed by other code during a deploy), which the analysis observes itself.
 */
export async function* storedPageParts(db: Db, crawlId: string, pages: number, wait: Wait): AsyncGenerator<PagePart> {
  const key = analyzersKey(ANALYZERS);
  const parts = (await wait(() =>
    db('crawl_observed_parts')
      .where({ crawl_id: crawlId, analyzers: key })
      .orderBy('first_index')
      .select('part', 'first_index', 'pages'),
  )) as Array<{ part: number; first_index: number; pages: number }>;
  const bodies = async (index: number, take: number): Promise<PagePart> => ({
    bodies: storedPageBodies(db, crawlId, wait, await pagesFrom(db, crawlId, index, take, wait)),
  });
  let next = 0;
  for (const part of parts) {
    if (part.first_index < next || part.first_index + part.pages > pages) continue;
    if (part.first_index > next) yield await bodies(next, part.first_index - next);
    const row = (await wait(() =>
      db('crawl_observed_parts').where({ crawl_id: crawlId, part: part.part }).first('payload'),
    )) as { payload: Buffer };
    yield { observed: decodePart(row.payload) };
    next = part.first_index + part.pages;
  }
  if (next < pages) yield await bodies(next, pages - next);
}
