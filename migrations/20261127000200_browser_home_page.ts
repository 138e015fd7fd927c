import type { Knex } from 'knex';

/**
 * The browser stage in two activities (docs/architecture.md, "The flow of an audit"): the home page,
 * rendered while the crawl runs, is kept here until the activity that renders the crawl's sample
 * (handed to it by the workflow) assembles the stage's result.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_browser_stages', (t) => {
    t.jsonb('home_page').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_browser_stages', (t) => {
    t.dropColumn('home_page');
  });
}
