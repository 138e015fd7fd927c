import type { Knex } from 'knex';
import { buildIndexConcurrently } from '../src/db/concurrent-index';

/**
 * The orders of the dashboard's pages view (src/audits/page-order.ts): one index per sortable
 * column, on the audit, the column's sort key and `seq`, so the first page of a 100,000-page audit in
 * any order reads the 51 rows it needs, and the keyset condition `(key, seq) > (…)` of a later page
 * starts where the previous one ended (docs/dashboard.md). Without them each page was a scan and sort
 * of every row of the audit (p99 near 300 ms at 100,000 pages, bench/dashboard-pages.ts). Each
 * expression is written exactly as the listing's ORDER BY, or the planner would not match it.
 *
 * Built CONCURRENTLY, so an upgrade never blocks the fact writes of completing audits; that cannot
 * run in a transaction. An index a killed build left invalid is dropped and built again.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, key: string]> = [
  ['audit_pages_url_order', '(url collate "C")'],
  ['audit_pages_status_order', '(coalesce(status, 0))'],
  ['audit_pages_depth_order', '(coalesce(depth, 2147483647))'],
  ['audit_pages_inlinks_order', 'inlinks'],
  ['audit_pages_response_order', 'response_ms'],
  ['audit_pages_bytes_order', 'bytes'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, key] of INDEXES) await buildIndexConcurrently(knex, name, `audit_pages (audit_id, ${key}, seq)`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
