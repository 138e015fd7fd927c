import type { Knex } from 'knex';
import { buildIndexConcurrently } from '../src/db/concurrent-index';

/**
 * The third family of the pages view's filtered orders (src/audits/page-order.ts): a status or
 * indexable filter together with a depth range, in any order but depth's. A cell is one indexable
 * value, one status and one depth, (audit_id, indexable, coalesce(status, 0), coalesce(depth, …), key,
 * seq), so such a page, like every other, reads only the rows it shows (bench/dashboard-pages.ts);
 * before, the status cells were filtered by depth and read about one row in three for nothing. The
 * order by status is the `seq` one, each cell's status being a constant. Five more indexes at every
 * write of a crawl's pages: the price docs/dashboard.md weighs.
 *
 * Built CONCURRENTLY, as 20261202000000_audit_page_filter_orders, so an upgrade never blocks the fact
 * writes of completing audits; that cannot run in a transaction. An index a killed build left invalid
 * is dropped and built again.
 */
export const config = { transaction: false };

const CELL = 'audit_id, indexable, (coalesce(status, 0)), (coalesce(depth, 2147483647))';

// Each key written exactly as the listing's ORDER BY, or the planner would not match it.
const INDEXES: Array<[name: string, columns: string]> = [
  ['audit_pages_status_depth_cell_crawl', `${CELL}, seq`],
  ['audit_pages_status_depth_cell_url', `${CELL}, (url collate "C"), seq`],
  ['audit_pages_status_depth_cell_inlinks', `${CELL}, inlinks, seq`],
  ['audit_pages_status_depth_cell_response', `${CELL}, response_ms, seq`],
  ['audit_pages_status_depth_cell_bytes', `${CELL}, bytes, seq`],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, columns] of INDEXES) await buildIndexConcurrently(knex, name, `audit_pages (${columns})`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
