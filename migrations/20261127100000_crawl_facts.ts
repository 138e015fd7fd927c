import type { Knex } from 'knex';

/**
 * The crawl facts stored beside an audit's JSON (src/audits/crawl-facts.ts, crawl-facts-store.ts):
 * one row per URL the crawl requested, and one per URL of each finding. A large site gives hundreds
 * of thousands of rows per audit, so rows stay compact: plain columns, text rather than jsonb, no
 * surrogate key. They go with their audit (ON DELETE CASCADE: pruning deletes the audits rows).
 *
 * - audit_pages: `seq` is the row's index in the crawl's list, the listing's one stable order. The
 *   primary key (audit_id, seq) serves keyset paging and the CSV export; the status filter (an exact
 *   code or a class such as 4xx) uses an index on the status class, the depth filters one on depth.
 * - audit_finding_urls: `position` orders a finding's URLs; the primary key serves their paging.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_pages', (t) => {
    t.string('audit_id').notNullable().references('audits.id').onDelete('CASCADE');
    t.integer('seq').notNullable();
    t.text('url').notNullable();
    t.smallint('status').nullable();
    t.integer('depth').nullable();
    t.integer('inlinks').notNullable();
    t.integer('outlinks').notNullable();
    t.text('title').nullable();
    t.text('content_type').nullable();
    t.integer('bytes').notNullable();
    t.integer('response_ms').notNullable();
    t.boolean('indexable').notNullable();
    t.text('canonical').nullable();
    t.text('redirect_to').nullable();
    t.primary(['audit_id', 'seq']);
  });
  // `status / 100` is the class the status filter compares (src/audits/crawl-facts-store.ts writes it so).
  await knex.raw('CREATE INDEX audit_pages_status_class ON audit_pages (audit_id, (status / 100), seq)');
  await knex.raw('CREATE INDEX audit_pages_depth ON audit_pages (audit_id, depth, seq)');

  await knex.schema.createTable('audit_finding_urls', (t) => {
    t.string('audit_id').notNullable().references('audits.id').onDelete('CASCADE');
    t.text('finding_id').notNullable();
    t.integer('position').notNullable();
    t.text('url').notNullable();
    t.integer('depth').nullable();
    t.integer('referrers').nullable();
    t.primary(['audit_id', 'finding_id', 'position']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_finding_urls');
  await knex.schema.dropTableIfExists('audit_pages');
}
