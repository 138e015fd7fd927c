import type { Knex } from 'knex';

/**
 * Which workflow run last wrote the audit's projection, by the run's start time. A re-triggered test
 * audit replaces its running workflow run; the replaced run's activity may still be under way and
 * must not overwrite what the newer run wrote (src/audits/repository.ts, projection writes).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.timestamp('run_started_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.dropColumn('run_started_at');
  });
}
