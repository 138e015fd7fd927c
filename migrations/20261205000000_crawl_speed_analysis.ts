import type { Knex } from 'knex';

/**
 * The measured analysis time per page (exponentially weighted, as ms_per_page is for the crawl):
 * a running audit's estimate counts the analysis of its pages with it (src/audits/estimate.ts).
 * Null until an audit large enough to measure it has completed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('crawl_speed', (t) => {
    t.double('analysis_ms_per_page').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('crawl_speed', (t) => {
    t.dropColumn('analysis_ms_per_page');
  });
}
