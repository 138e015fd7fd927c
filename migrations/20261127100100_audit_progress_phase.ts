import type { Knex } from 'knex';

/**
 * A running live audit's progress beside `pages_crawled` (src/audits/progress.ts): its phase, the
 * pages discovered so far, and the two times its estimate needs — when the attempt's run started
 * (the measured crawl rate counts from there) and when the current phase began.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.text('progress_phase').nullable();
    t.integer('pages_discovered').nullable();
    t.timestamp('attempt_started_at', { useTz: true }).nullable();
    t.timestamp('phase_started_at', { useTz: true }).nullable();
  });
  await knex.raw(
    `ALTER TABLE audits ADD CONSTRAINT audits_progress_phase_known
       CHECK (progress_phase IN ('crawling', 'checking', 'analyzing', 'rendering'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE audits DROP CONSTRAINT IF EXISTS audits_progress_phase_known');
  await knex.schema.alterTable('audits', (t) => {
    t.dropColumn('phase_started_at');
    t.dropColumn('attempt_started_at');
    t.dropColumn('pages_discovered');
    t.dropColumn('progress_phase');
  });
}
