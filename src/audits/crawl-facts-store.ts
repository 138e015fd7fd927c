import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import { storableOptionalText, storableText } from '../text/storable';
import type { CrawlFacts, FindingUrlFact, PageFact } from './crawl-facts';
import { listOrderedAuditPages, type FactsPage, type PageFilter, type Paging, type StoredPage } from './page-order';

// The listing's types live with the listing (src/audits/page-order.ts); the readers import them from here too.
export type { FactsPage, PageFilter, Paging, StatusFilter, StoredPage } from './page-order';

/**
 * The crawl facts of an audit in Postgres (tables audit_pages and audit_finding_urls, migration
 * 20261127100000_crawl_facts): written as a whole by the attempt that completes the audit, read a
 * page at a time by the API's listings and a chunk at a time by the CSV exports.
 */

/** Rows per INSERT, and per query of the CSV iterators: well under Postgres' 65,535 parameters. */
export const FACTS_CHUNK = 1000;

/**
 * Replaces the audit's stored facts with `facts`: each table's old rows go and the new ones are
 * inserted in chunks, in one transaction per table. The two run side by side on two connections, so
 * Postgres maintains the two tables' indexes (23 on audit_pages) in two backends, on two cores.
 * Idempotent (an activity retry writes the same rows again), and calls for the same audit are
 * serialised per table by an advisory lock, so two attempts never interleave their rows. The audit
 * completes only after both have committed, so no reader sees one table replaced without the other.
 */
export async function replaceCrawlFacts(db: Db, auditId: string, facts: CrawlFacts): Promise<void> {
  let seq = 0;
  const outcomes = await Promise.allSettled([
    replaceRows(db, auditId, 'audit_pages', facts.pages, (page) => pageRow(auditId, seq++, page)),
    replaceRows(db, auditId, 'audit_finding_urls', facts.findingUrls, (fact) => findingUrlRow(auditId, fact)),
  ]);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** One table's rows of the audit, replaced in a transaction, FACTS_CHUNK rows per INSERT. */
async function replaceRows<T>(
  db: Db,
  auditId: string,
  table: 'audit_pages' | 'audit_finding_urls',
  facts: Iterable<T>,
  row: (fact: T) => object,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`${table}:${auditId}`]);
    await trx(table).where({ audit_id: auditId }).delete();
    await insertChunked(trx, table, facts, row);
  });
}

/** Inserts the rows FACTS_CHUNK at a time, holding one chunk of them at once. */
async function insertChunked<T>(
  trx: Knex.Transaction,
  table: string,
  facts: Iterable<T>,
  row: (fact: T) => object,
): Promise<void> {
  let chunk: object[] = [];
  for (const fact of facts) {
    chunk.push(row(fact));
    if (chunk.length < FACTS_CHUNK) continue;
    await trx(table).insert(chunk);
    chunk = [];
  }
  if (chunk.length > 0) await trx(table).insert(chunk);
}

function pageRow(auditId: string, seq: number, page: PageFact) {
  return {
    audit_id: auditId,
    seq,
    url: storableText(page.url),
    status: page.status,
    depth: page.depth,
    inlinks: page.inlinks,
    outlinks: page.outlinks,
    title: storableOptionalText(page.title),
    content_type: storableOptionalText(page.content_type),
    bytes: page.bytes,
    response_ms: page.response_ms,
    indexable: page.indexable,
    canonical: storableOptionalText(page.canonical),
    redirect_to: storableOptionalText(page.redirect_to),
  };
}

function findingUrlRow(auditId: string, fact: FindingUrlFact) {
  return {
    audit_id: auditId,
    finding_id: fact.finding_id,
    position: fact.position,
    url: storableText(fact.url),
    depth: fact.depth,
    referrers: fact.referrers,
  };
}

/**
 * One page of the audit's pages in crawl order, filtered; `after` is a `seq`. The dashboard's ordered
 * listing in its crawl order (src/audits/page-order.ts), so a filter reads only the rows it shows.
 */
export async function listAuditPages(
  db: Db,
  auditId: string,
  options: Paging<number> & PageFilter,
): Promise<FactsPage<StoredPage>> {
  const { after } = options;
  const page = await listOrderedAuditPages(db, auditId, {
    ...options,
    order: { column: 'crawl', descending: false },
    after: after === undefined ? undefined : { key: after, seq: after },
  });
  return { ...page, rows: page.rows.map(({ sort_key: _key, ...row }) => row) };
}

/** One page of a finding's URLs in their order; `after` is a `position`. */
export async function listFindingUrls(
  db: Db,
  auditId: string,
  findingId: string,
  options: Paging<number>,
): Promise<FactsPage<FindingUrlFact>> {
  const query = db('audit_finding_urls')
    .where({ audit_id: auditId, finding_id: findingId })
    .orderBy('position')
    .limit(options.limit + 1)
    .select('finding_id', 'position', 'url', 'depth', 'referrers');
  if (options.after !== undefined) query.where('position', '>', options.after);
  const rows = (await query) as FindingUrlFact[];
  return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}

/** How many URLs each finding of the audit has stored (findings without any are absent). */
export async function countFindingUrls(db: Db, auditId: string): Promise<Map<string, number>> {
  const rows = (await db('audit_finding_urls')
    .where('audit_id', auditId)
    .groupBy('finding_id')
    .select('finding_id')
    .count({ count: '*' })) as { finding_id: string; count: string | number }[];
  return new Map(rows.map((row) => [row.finding_id, Number(row.count)]));
}

/**
 * Every page of the audit in crawl order, read `chunk` rows per query (keyset on seq), so an export
 * of any size holds one chunk in memory and no connection between chunks.
 */
export async function* iterateAuditPages(db: Db, auditId: string, chunk = FACTS_CHUNK): AsyncGenerator<StoredPage> {
  let after: number | undefined;
  for (;;) {
    const page = await listAuditPages(db, auditId, { limit: chunk, after });
    yield* page.rows;
    if (!page.hasMore) return;
    after = page.rows[page.rows.length - 1]!.seq;
  }
}

/** Every URL of one finding in order, `chunk` rows per query (keyset on position). */
export async function* iterateFindingUrls(
  db: Db,
  auditId: string,
  findingId: string,
  chunk = FACTS_CHUNK,
): AsyncGenerator<FindingUrlFact> {
  let after: number | undefined;
  for (;;) {
    const page = await listFindingUrls(db, auditId, findingId, { limit: chunk, after });
    yield* page.rows;
    if (!page.hasMore) return;
    after = page.rows[page.rows.length - 1]!.position;
  }
}
