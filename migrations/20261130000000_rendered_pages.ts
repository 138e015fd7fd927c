import type { Knex } from 'knex';
import { buildIndexConcurrently } from '../src/db/concurrent-index';

/**
 * Rendering where it is needed (docs/architecture.md, "Durable crawl"): a crawled page rendered in
 * the browser pool keeps what rendering showed beside its response (`crawl_pages.rendered`, JSON:
 * links and main-text words in the response and after rendering, or why it could not render), for
 * SEO_CONTENT_NEEDS_JS. An application shell waits in the frontier as 'rendering' until then; the
 * claims read the shallowest such page, and the rendering step finds its page by URL.
 *
 * The indexes are built CONCURRENTLY, so an upgrade never blocks the steps of crawls under way; that
 * cannot run in a transaction. An index a killed build left invalid is dropped and built again.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, definition: string]> = [
  ['crawl_pages_url', 'crawl_pages (crawl_id, url)'],
  ['crawl_frontier_rendering', `crawl_frontier (crawl_id, depth) WHERE state = 'rendering'`],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE crawl_pages ADD COLUMN IF NOT EXISTS rendered text');
  for (const [name, definition] of INDEXES) await buildIndexConcurrently(knex, name, definition);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await knex.raw('ALTER TABLE crawl_pages DROP COLUMN IF EXISTS rendered');
}
