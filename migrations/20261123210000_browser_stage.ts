import type { Knex } from 'knex';

/**
 * The browser stage's hand-over between the audit's activities (docs/analyzers.md, "Browser stage"):
 * per audit attempt, the pages the crawl sampled for rendering (written as soon as the crawl ends, so
 * the browser worker starts on them while the HTML analysis runs), the stage's result, and the audit
 * JSON waiting for it. Kept out of the activities' payloads: 25 pages of violations can be large.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_browser_stages', (t) => {
    t.string('audit_id').notNullable().references('audits.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.jsonb('sample_urls').nullable();
    t.jsonb('stage_result').nullable();
    t.text('pending_audit_json').nullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['audit_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_browser_stages');
}
