import type { Knex } from 'knex';

/**
 * `render: "all"` (docs/architecture.md, "Durable crawl"; README.md, POST /v1/audits): an audit keeps
 * how its pages are rendered (`audits.render`: 'sample', the default and every audit before this, or
 * 'all', every crawled HTML page), so a start the reconciler makes renders as the trigger asked. A
 * crawled page rendered with `render: "all"` keeps its rendered-DOM checks beside its rendered facts
 * (`crawl_pages.rendered_checks`, JSON: axe-core's failing elements and the console errors), read
 * back by the analysis and dropped with the crawl. Both columns are added without a table rewrite
 * (a constant default), so an upgrade never blocks the audits or crawls under way.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE audits ADD COLUMN IF NOT EXISTS render text NOT NULL DEFAULT 'sample'`);
  await knex.raw(`ALTER TABLE audits DROP CONSTRAINT IF EXISTS audits_render_check`);
  await knex.raw(`ALTER TABLE audits ADD CONSTRAINT audits_render_check CHECK (render IN ('sample', 'all')) NOT VALID`);
  await knex.raw('ALTER TABLE crawl_pages ADD COLUMN IF NOT EXISTS rendered_checks text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE crawl_pages DROP COLUMN IF EXISTS rendered_checks');
  await knex.raw('ALTER TABLE audits DROP CONSTRAINT IF EXISTS audits_render_check');
  await knex.raw('ALTER TABLE audits DROP COLUMN IF EXISTS render');
}
