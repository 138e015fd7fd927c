import type { Knex } from 'knex';
import { buildIndexConcurrently } from '../src/db/concurrent-index';

/**
 * The filtered orders of the pages view and the API's listing (src/audits/page-order.ts): a filtered
 * page is the merge of cells, each a run of one of these indexes already in the order's key, so the
 * first page of a 100,000-page audit reads the rows it shows, not every row the filter passes over on
 * the way (bench/dashboard-pages.ts). Two families, one index per order (`seq` is the crawl order):
 * - status and indexable: (audit_id, indexable, coalesce(status, 0), key, seq); the order by status
 *   is the `seq` one, the status range being its own order.
 * - depth: (audit_id, coalesce(depth, …), key, seq); the crawl order and the order by depth are
 *   audit_pages_depth_order of 20261129200000_audit_page_sorts.
 * They replace audit_pages_status_class and audit_pages_depth of 20261127100000_crawl_facts, which
 * served the filters of the crawl order alone and are no longer read.
 *
 * Built CONCURRENTLY, as 20261129200000_audit_page_sorts, so an upgrade never blocks the fact writes of
 * completing audits; that cannot run in a transaction. An index a killed build left invalid is dropped
 * and built again.
 */
export const config = { transaction: false };

const STATUS_CELL = 'audit_id, indexable, (coalesce(status, 0))';
const DEPTH_CELL = 'audit_id, (coalesce(depth, 2147483647))';

// Each key written exactly as the listing's ORDER BY, or the planner would not match it.
const INDEXES: Array<[name: string, columns: string]> = [
  ['audit_pages_status_cell_crawl', `${STATUS_CELL}, seq`],
  ['audit_pages_status_cell_url', `${STATUS_CELL}, (url collate "C"), seq`],
  ['audit_pages_status_cell_depth', `${STATUS_CELL}, (coalesce(depth, 2147483647)), seq`],
  ['audit_pages_status_cell_inlinks', `${STATUS_CELL}, inlinks, seq`],
  ['audit_pages_status_cell_response', `${STATUS_CELL}, response_ms, seq`],
  ['audit_pages_status_cell_bytes', `${STATUS_CELL}, bytes, seq`],
  ['audit_pages_depth_cell_url', `${DEPTH_CELL}, (url collate "C"), seq`],
  ['audit_pages_depth_cell_status', `${DEPTH_CELL}, (coalesce(status, 0)), seq`],
  ['audit_pages_depth_cell_inlinks', `${DEPTH_CELL}, inlinks, seq`],
  ['audit_pages_depth_cell_response', `${DEPTH_CELL}, response_ms, seq`],
  ['audit_pages_depth_cell_bytes', `${DEPTH_CELL}, bytes, seq`],
];

const REPLACED: Array<[name: string, columns: string]> = [
  ['audit_pages_status_class', 'audit_id, (status / 100), seq'],
  ['audit_pages_depth', 'audit_id, depth, seq'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, columns] of INDEXES) await buildIndexConcurrently(knex, name, `audit_pages (${columns})`);
  for (const [name] of REPLACED) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name, columns] of REPLACED) await buildIndexConcurrently(knex, name, `audit_pages (${columns})`);
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
