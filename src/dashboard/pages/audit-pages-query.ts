import type { PageFilter } from '../../audits/crawl-facts-store';
import {
  keyFits,
  PAGE_SORT_COLUMNS,
  type OrderedPosition,
  type PageOrder,
  type PageSortColumn,
} from '../../audits/page-order';
import { listAuditPagesQuerySchema } from '../../schemas/api-pages';

/**
 * The pages view's query string: the API's filters (status, depth bounds, indexable; their limits
 * come from the API's own schema), the order, and the cursor. A value that is given but not valid is
 * left out of the listing with a sentence saying so; the page answers 400 and never fails.
 */

/** The filters as the form shows them: what was typed, so a refusal keeps it. */
export interface PagesForm {
  status: string;
  min_depth: string;
  max_depth: string;
  /** '' (any), 'true' or 'false'. */
  indexable: string;
}

export interface PagesQuery {
  form: PagesForm;
  filter: PageFilter;
  order: PageOrder;
  cursor?: string;
  invalid: string[];
}

const STATUS = new RegExp(listAuditPagesQuerySchema.properties.status.pattern);
const MAX_DEPTH = listAuditPagesQuerySchema.properties.min_depth.maximum;
/** Columns whose first click sorts the largest first: the slowest, heaviest and most linked pages are the ones looked for. */
export const LARGEST_FIRST: ReadonlySet<PageSortColumn> = new Set(['inlinks', 'response_ms', 'bytes']);

export function pagesQuery(query: Record<string, unknown>): PagesQuery {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim() : '');
  const form: PagesForm = {
    status: text('status'),
    min_depth: text('min_depth'),
    max_depth: text('max_depth'),
    indexable: text('indexable'),
  };
  const invalid: string[] = [];
  const filter: PageFilter = {};
  if (form.status && STATUS.test(form.status))
    filter.status = form.status.endsWith('xx') ? { class: Number(form.status[0]) } : { code: Number(form.status) };
  else if (form.status)
    invalid.push(
      'Status must be a code from 100 to 599, such as 404, or a class: 2xx, 3xx, 4xx or 5xx; the list ignores it.',
    );
  const depth = (raw: string, label: string) => {
    if (raw === '') return undefined;
    if (/^\d{1,10}$/.test(raw) && Number(raw) <= MAX_DEPTH) return Number(raw);
    invalid.push(`${label} must be a whole number from 0 to ${MAX_DEPTH}; the list ignores it.`);
    return undefined;
  };
  const minDepth = depth(form.min_depth, 'Minimum depth');
  const maxDepth = depth(form.max_depth, 'Maximum depth');
  if (minDepth !== undefined && maxDepth !== undefined && minDepth > maxDepth)
    invalid.push(`Minimum depth (${minDepth}) is greater than Maximum depth (${maxDepth}); the list ignores both.`);
  else {
    if (minDepth !== undefined) filter.minDepth = minDepth;
    if (maxDepth !== undefined) filter.maxDepth = maxDepth;
  }
  if (form.indexable === 'true' || form.indexable === 'false') filter.indexable = form.indexable === 'true';
  else if (form.indexable) invalid.push('Indexable must be yes, no or any; the list ignores it.');
  return {
    form,
    filter,
    order: orderOf(text('sort'), text('order'), invalid),
    cursor: text('cursor') || undefined,
    invalid,
  };
}

function orderOf(sort: string, order: string, invalid: string[]): PageOrder {
  const known = (PAGE_SORT_COLUMNS as readonly string[]).includes(sort);
  if (sort && !known) invalid.push('The list cannot be sorted that way; it is shown in crawl order.');
  if (order && order !== 'asc' && order !== 'desc') invalid.push('The order must be asc or desc.');
  const column = known ? (sort as PageSortColumn) : 'crawl';
  const descending = order === 'desc' || (order !== 'asc' && column !== 'crawl' && LARGEST_FIRST.has(column));
  return { column, descending };
}

/** The cursor after `position` in this audit's listing in this order: the order is part of it. */
export function encodePagesCursor(auditId: string, order: PageOrder, position: OrderedPosition): string {
  const key = order.column === 'crawl' ? position.seq : position.key;
  return Buffer.from(JSON.stringify([auditId, order.column, order.descending, key, position.seq])).toString(
    'base64url',
  );
}

/** The position a cursor names; null unless encodePagesCursor made it for this audit and order. */
export function decodePagesCursor(cursor: string, auditId: string, order: PageOrder): OrderedPosition | null {
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(decoded) || decoded.length !== 5) return null;
    const [audit, column, descending, key, seq] = decoded as unknown[];
    if (audit !== auditId || column !== order.column || descending !== order.descending) return null;
    if (!Number.isInteger(seq) || (seq as number) < 0 || (seq as number) > 2147483647) return null;
    if (order.column === 'crawl' ? key !== seq : !keyFits(order.column, key)) return null;
    return { key: key as string | number, seq: seq as number };
  } catch {
    return null;
  }
}
