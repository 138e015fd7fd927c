import type { Knex } from 'knex';

/** Pages crawled so far by a running attempt: what the dashboard shows while an audit runs. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.integer('pages_crawled').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.dropColumn('pages_crawled');
  });
}
