import type { Db } from '../db/knex';
import {
  applyPageFilter,
  listAuditPages,
  PAGE_COLUMNS,
  type FactsPage,
  type PageFilter,
  type Paging,
  type StoredPage,
} from './crawl-facts-store';

/**
 * The audit's pages in an order of the reader's choosing (the dashboard's pages view, docs/dashboard.md),
 * keyset-paged like the API's listing: the sort key, then `seq`, so every order is total and a page
 * boundary never skips or repeats a row. Pages whose column is unknown sort as a fixed value: a
 * status that could not be fetched as 0 (before 1xx), an unknown depth (only in a sitemap) as the
 * deepest. Each key is the expression of an index (migration 20261129200000_audit_page_sorts), so a
 * page of any order reads the rows it shows, and with a filter also those the filter passes over.
 */

export const PAGE_SORT_COLUMNS = ['url', 'status', 'depth', 'inlinks', 'response_ms', 'bytes'] as const;
export type PageSortColumn = (typeof PAGE_SORT_COLUMNS)[number];

/** `crawl`: the crawl's own order (the API's listing). */
export interface PageOrder {
  column: PageSortColumn | 'crawl';
  descending: boolean;
}

/** Where a page of an ordered listing ended: the last row's sort key and seq. */
export interface OrderedPosition {
  key: string | number;
  seq: number;
}

export type OrderedPage = StoredPage & { sort_key: string | number };

// Written as the indexes are: the planner matches an index by its expression, character for character.
const SORT_KEYS: Record<PageSortColumn, string> = {
  url: 'url collate "C"',
  status: 'coalesce(status, 0)',
  depth: 'coalesce(depth, 2147483647)',
  inlinks: 'inlinks',
  response_ms: 'response_ms',
  bytes: 'bytes',
};

const INT4_MAX = 2147483647;

/** Whether a cursor's key is a value the column's key can hold (text without NUL for the URL, an int4 otherwise). */
export function keyFits(column: PageSortColumn, key: unknown): key is string | number {
  if (column === 'url') return typeof key === 'string' && !key.includes('\u0000');
  return Number.isInteger(key) && Math.abs(key as number) <= INT4_MAX;
}

/** One page of the audit's pages in `order`, filtered; `after` is where the previous page ended. */
export async function listOrderedAuditPages(
  db: Db,
  auditId: string,
  options: Paging<OrderedPosition> & PageFilter & { order: PageOrder },
): Promise<FactsPage<OrderedPage>> {
  const { order, after } = options;
  if (order.column === 'crawl' && !order.descending) {
    const page = await listAuditPages(db, auditId, { ...options, after: after?.seq });
    return { ...page, rows: page.rows.map((row) => ({ ...row, sort_key: row.seq })) };
  }
  const key = order.column === 'crawl' ? 'seq' : SORT_KEYS[order.column];
  const direction = order.descending ? 'desc' : 'asc';
  const query = db('audit_pages')
    .where('audit_id', auditId)
    .select(...PAGE_COLUMNS, db.raw(`${key} as sort_key`))
    .orderByRaw(order.column === 'crawl' ? `seq ${direction}` : `${key} ${direction}, seq ${direction}`)
    .limit(options.limit + 1);
  if (after !== undefined) {
    const beyond = order.descending ? '<' : '>';
    if (order.column === 'crawl') query.where('seq', beyond, after.seq);
    else query.whereRaw(`(${key}, seq) ${beyond} (?, ?)`, [after.key, after.seq]);
  }
  applyPageFilter(query, options);
  const rows = (await query) as OrderedPage[];
  return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}
