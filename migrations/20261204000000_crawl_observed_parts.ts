import type { Knex } from 'knex';

/**
 * The analysis in parts (docs/architecture.md, "Analysis in parts"): once a crawl has ended, its pages
 * are observed by every analyzer a part at a time, each part an activity any audit worker takes, and
 * each part's observations are kept here until the analysis takes them. `first_index` is the part's
 * first page in the crawl's page order; `analyzers` names the analyzers it was observed with (a part
 * observed by other code is observed again); `payload` is the observations, serialized and deflated.
 * Dropped with the crawl.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('crawl_observed_parts', (t) => {
    t.text('crawl_id').notNullable().references('crawl_runs.crawl_id').onDelete('CASCADE');
    t.integer('part').notNullable();
    t.integer('first_index').notNullable();
    t.integer('pages').notNullable();
    t.text('analyzers').notNullable();
    t.binary('payload').notNullable();
    t.primary(['crawl_id', 'part']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('crawl_observed_parts');
}
