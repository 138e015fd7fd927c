import type { Knex } from 'knex';

/**
 * The analysis reads a crawl's checked targets back a chunk at a time in crawl order (keyset on
 * `seq`, src/crawl/durable/stored-snapshot.ts), so a site with 100,000 checked links is never held
 * as one result set (docs/architecture.md, "Durable crawl", Memory). crawl_targets is working state,
 * emptied as each audit completes, so building the index takes no noticeable lock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS crawl_targets_read_order ON crawl_targets (crawl_id, seq)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS crawl_targets_read_order');
}
