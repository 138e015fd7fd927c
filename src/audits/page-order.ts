import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import { auditPageSchema } from '../schemas/api-pages';
import type { PageFact } from './crawl-facts';

/**
 * The audit's pages, filtered, in an order of the reader's choosing: the dashboard's pages view and
 * the API's listing (docs/dashboard.md), keyset-paged on the order's key, then `seq`, so every order is
 * total and a page boundary never skips or repeats a row. Pages whose column is unknown sort as a fixed
 * value: a status that could not be fetched as 0 (before 1xx), an unknown depth (only in a sitemap) as
 * the deepest.
 *
 * A page reads the rows it shows, filtered or not. Unfiltered, each
 * order has an index on the audit, its key and `seq` (migration 20261129200000_audit_page_sorts). A
 * filter is a union of cells, each a run of an index already in the order's key (migration
 * 20261202000000_audit_page_filter_orders), and the page is their merge (Postgres' Merge Append takes
 * the next row from whichever cell has it):
 * - status and indexable: a cell is one indexable value and one status, (audit_id, indexable,
 *   coalesce(status, 0), key, seq). Sorted by status, one indexable value with the status range.
 * - depth alone: a cell is one depth, (audit_id, coalesce(depth, …), key, seq). Sorted by depth, the
 *   depth range of audit_pages_depth_order.
 * - depth with status or indexable: sorted by depth, the status cells with the depth range inside the
 *   index; in another order, a cell is one indexable value, one status and one depth, (audit_id,
 *   indexable, coalesce(status, 0), coalesce(depth, …), key, seq) (migration
 *   20261203000000_audit_page_status_depth_orders).
 * The cells that hold pages are found first, one index descent per value (cellValues); the merge reads
 * at most one row more than it returns from each cell.
 */

/** A page row with its position in the crawl's list (the listing's order and its cursor). */
export type StoredPage = PageFact & { seq: number };

export type StatusFilter = { code: number } | { class: number };

export interface PageFilter {
  /** An exact status code, or a class: `{class: 4}` is 400–499. Pages that could not be fetched match neither. */
  status?: StatusFilter;
  /** Depth bounds, inclusive; pages of unknown depth (only in a sitemap) match no bound. */
  minDepth?: number;
  maxDepth?: number;
  indexable?: boolean;
}

export interface Paging<Position> {
  limit: number;
  /** The position of the last row of the previous page; rows after it come next. */
  after?: Position;
}

export interface FactsPage<Row> {
  rows: Row[];
  hasMore: boolean;
}

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

export const PAGE_COLUMNS = ['seq', ...auditPageSchema.required] as const;

const INT4_MAX = 2147483647;

// Written as the indexes are: the planner matches an index by its expression, character for character.
const KEYS: Record<PageOrder['column'], string> = {
  crawl: 'seq',
  url: 'url collate "C"',
  status: 'coalesce(status, 0)',
  depth: `coalesce(depth, ${INT4_MAX})`,
  inlinks: 'inlinks',
  response_ms: 'response_ms',
  bytes: 'bytes',
};

/** Every status a smallint can hold: the status range of a filter without one. */
const ANY_STATUS: Range = [-32768, 32767];

/**
 * More cells than this (a site with hundreds of depths) and the dimension is one range condition
 * instead: planning hundreds of branches would cost more than the rows they save.
 */
const MAX_CELLS = 40;

type Range = [low: number, high: number];
/** A condition of a cell: its expression equal to one value, or within a range. */
type Condition = { expr: string; value: number | boolean } | { expr: string; range: Range };

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
  const cells = await cellsOf(db, auditId, options, options.order.column);
  if (cells.length === 0) return { rows: [], hasMore: false };
  const branches = cells.map((cell) => cellQuery(db, auditId, cell, options));
  const query =
    branches.length === 1
      ? branches[0]!
      : db
          .select('*')
          .from(db.queryBuilder().unionAll(branches, true).as('cells'))
          .orderByRaw(orderBy('sort_key', options.order))
          .limit(options.limit + 1);
  const rows = (await query) as OrderedPage[];
  return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}

/** The cells whose merge is the filtered listing; one cell without conditions when nothing is filtered. */
async function cellsOf(
  db: Db,
  auditId: string,
  filter: PageFilter,
  column: PageOrder['column'],
): Promise<Condition[][]> {
  const status = statusRange(filter.status);
  const depth = depthRange(filter);
  if (!status && filter.indexable === undefined) {
    if (!depth) return [[]];
    if (column === 'depth') return [[{ expr: KEYS.depth, range: depth }]];
    return (await cellValues(db, auditId, KEYS.depth, depth)).map(([, value]) => [condition(KEYS.depth, value)]);
  }
  const indexables = filter.indexable === undefined ? [false, true] : [filter.indexable];
  if (depth && column !== 'depth') {
    const cells = await statusDepthCells(db, auditId, indexables, status, depth);
    if (cells)
      return cells.map(([pin, code, level]) => [
        { expr: 'indexable', value: pin },
        // Sorted by status, its two bounds keep it the key (cellQuery).
        column === 'status' ? { expr: KEYS.status, range: [code, code] } : { expr: KEYS.status, value: code },
        { expr: KEYS.depth, value: level },
      ]);
  }
  const depthCondition: Condition[] = depth ? [{ expr: KEYS.depth, range: depth }] : [];
  if (column === 'status')
    return indexables.map((value) => [
      { expr: 'indexable', value },
      { expr: KEYS.status, range: status ?? ANY_STATUS },
      ...depthCondition,
    ]);
  const cells =
    status && status[0] === status[1]
      ? indexables.map((pin): [boolean, number] => [pin, status[0]])
      : await cellValues(db, auditId, KEYS.status, status ?? ANY_STATUS, indexables);
  return cells.map(([pin, value]) => [
    { expr: 'indexable', value: pin! },
    condition(KEYS.status, value),
    ...depthCondition,
  ]);
}

/**
 * A status or indexable filter with a depth range, in an order other than depth's: one cell per
 * indexable value, status and depth present (migration 20261203000000_audit_page_status_depth_orders),
 * walked through that index one descent per depth. Undefined past MAX_CELLS cells: the status cells,
 * filtered by depth, instead.
 */
async function statusDepthCells(
  db: Db,
  auditId: string,
  indexables: boolean[],
  status: Range | undefined,
  depth: Range,
): Promise<Array<[pin: boolean, code: number, level: number]> | undefined> {
  const pairs =
    status && status[0] === status[1]
      ? indexables.map((pin): [boolean | null, number | Range] => [pin, status[0]])
      : await cellValues(db, auditId, KEYS.status, status ?? ANY_STATUS, indexables);
  if (pairs.length === 0) return [];
  if (pairs.some(([, code]) => typeof code !== 'number')) return undefined;
  const next = (pin: string, code: string, after: string) =>
    `(SELECT ${KEYS.depth} FROM audit_pages WHERE audit_id = ? AND indexable = ${pin} AND ${KEYS.status} = ${code}
      AND ${KEYS.depth} ${after} AND ${KEYS.depth} <= ? ORDER BY 1 LIMIT 1)`;
  const result = await db.raw(
    `WITH RECURSIVE walk(pin, code, value) AS (
       SELECT s.pin, s.code, ${next('s.pin', 's.code', '>= ?')}
       FROM (VALUES ${pairs.map(() => '(?::boolean, ?::int)').join(', ')}) AS s(pin, code)
       UNION ALL
       SELECT w.pin, w.code, ${next('w.pin', 'w.code', '> w.value')} FROM walk AS w WHERE w.value IS NOT NULL
     ) SELECT pin, code, value FROM walk WHERE value IS NOT NULL LIMIT ?`,
    [auditId, depth[0], depth[1], ...pairs.flat(), auditId, depth[1], MAX_CELLS + 1],
  );
  const rows = result.rows as Array<{ pin: boolean; code: number; value: number }>;
  return rows.length > MAX_CELLS ? undefined : rows.map((row) => [row.pin, row.code, row.value]);
}

function condition(expr: string, value: number | Range): Condition {
  return typeof value === 'number' ? { expr, value } : { expr, range: value };
}

/** An exact code as a range of one, a class as its hundred codes; pages that could not be fetched (0) match neither. */
function statusRange(status: StatusFilter | undefined): Range | undefined {
  if (!status) return undefined;
  if ('code' in status) return [status.code, status.code];
  return [status.class * 100, status.class * 100 + 99];
}

/**
 * The depth bounds on the depth key. Its top value stands for an unknown depth, which matches no
 * bound, so the range stops below it; no crawl reaches that depth (each level is a page crawled).
 */
function depthRange(filter: PageFilter): Range | undefined {
  if (filter.minDepth === undefined && filter.maxDepth === undefined) return undefined;
  return [filter.minDepth ?? -INT4_MAX - 1, Math.min(filter.maxDepth ?? INT4_MAX, INT4_MAX - 1)];
}

/**
 * The values of `expr` present among the audit's pages within `range`, for each of `pins` (values
 * of `indexable`) if given: the cells that hold pages. Walked through the index, one descent per
 * value (a loose index scan), never reading the rows between. Past MAX_CELLS values, the range itself
 * (one cell per pin).
 */
async function cellValues(
  db: Db,
  auditId: string,
  expr: string,
  range: Range,
  pins?: boolean[],
): Promise<Array<[pin: boolean | null, value: number | Range]>> {
  const seeds = pins ?? [null];
  const pinned = (pin: string) => (pins ? `AND indexable = ${pin}` : '');
  const next = (pin: string, after: string) =>
    `(SELECT ${expr} FROM audit_pages WHERE audit_id = ? ${pinned(pin)} AND ${expr} ${after} AND ${expr} <= ? ORDER BY 1 LIMIT 1)`;
  const result = await db.raw(
    `WITH RECURSIVE walk(pin, value) AS (
       SELECT pin, ${next('pin', '>= ?')} FROM unnest(array[${seeds.map(() => '?::boolean').join(', ')}]) AS pin
       UNION ALL
       SELECT w.pin, ${next('w.pin', '> w.value')} FROM walk AS w WHERE w.value IS NOT NULL
     ) SELECT pin, value FROM walk WHERE value IS NOT NULL LIMIT ?`,
    [auditId, range[0], range[1], ...seeds, auditId, range[1], MAX_CELLS + 1],
  );
  const rows = result.rows as Array<{ pin: boolean | null; value: number }>;
  if (rows.length > MAX_CELLS) return seeds.map((pin) => [pin, range]);
  return rows.map((row) => [row.pin, row.value]);
}

/** One cell's rows after `after`, in the order, as many as a page needs: one run of its index. */
function cellQuery(
  db: Db,
  auditId: string,
  cell: Condition[],
  options: Paging<OrderedPosition> & { order: PageOrder },
): Knex.QueryBuilder {
  const { order, after } = options;
  const key = KEYS[order.column];
  const query = db('audit_pages')
    .where('audit_id', auditId)
    .select(...PAGE_COLUMNS, db.raw(`${key} as sort_key`))
    .orderByRaw(orderBy(key, order))
    .limit(options.limit + 1);
  for (const condition of cell) {
    if ('value' in condition) query.whereRaw(`${condition.expr} = ?`, [condition.value]);
    // Two bounds even for a range of one: on an equality Postgres takes the key for a constant, the
    // cell's rows lose their order in it, and the merge above could not take them as they come.
    else query.whereRaw(`${condition.expr} >= ? and ${condition.expr} <= ?`, condition.range);
  }
  if (after !== undefined) {
    const beyond = order.descending ? '<' : '>';
    if (order.column === 'crawl') query.where('seq', beyond, after.seq);
    else query.whereRaw(`(${key}, seq) ${beyond} (?, ?)`, [after.key, after.seq]);
  }
  return query;
}

function orderBy(key: string, order: PageOrder): string {
  const direction = order.descending ? 'desc' : 'asc';
  return order.column === 'crawl' ? `seq ${direction}` : `${key} ${direction}, seq ${direction}`;
}
