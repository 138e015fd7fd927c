import type { Knex } from 'knex';

/**
 * Which run of an audit may write its projection: a re-triggered test audit replaces its running
 * workflow run, whose activity may still be under way; each trigger of the audit counts one up and
 * the run it starts writes only while the count is its own (src/audits/repository.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.integer('run_generation').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.dropColumn('run_generation');
  });
}
