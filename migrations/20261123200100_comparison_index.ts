import type { Knex } from 'knex';

/**
 * What the next audit of the same site compares itself with (src/monitoring/basis.ts): score,
 * categories and one entry per distinct finding fingerprint, written with the result. Reading it
 * instead of the whole stored audit (megabytes for a big crawl) keeps the comparison cheap; null on
 * audits stored before it, which are read from their result. Looked up through audits_site_history_idx.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.jsonb('comparison_basis').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.dropColumn('comparison_basis');
  });
}
