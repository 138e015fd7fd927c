import type { Knex } from 'knex';

/**
 * The durable crawl's working state (src/crawl/durable/, docs/architecture.md "Durable crawl"): what
 * an audit attempt's crawl has discovered, fetched and checked, written by each checkpointed step,
 * so any worker can take the next step and a killed worker costs only the step it was on. Deleted
 * once the attempt's audit is stored (the audit keeps its own facts in audit_pages), and swept by
 * retention when an attempt was abandoned.
 *
 * - crawl_runs: one per attempt (`crawl_id`); counters, robots.txt and the probes' results.
 * - crawl_frontier: every same-site URL seen, keyed by URL: its state (queued, claimed by a step,
 *   crawled, …), depth and referrers (exact count, the first few named).
 * - crawl_pages: each fetched page's metadata, and its HTML until the analysis reads it.
 * - crawl_targets: subresources and other sites' links, each checked once.
 * - crawl_steps: the result of each committed step, so a step retried after its commit is not redone.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('crawl_runs', (t) => {
    t.text('crawl_id').primary();
    t.text('audit_id').notNullable();
    t.text('origin').notNullable();
    t.integer('page_budget').notNullable();
    t.integer('html_pages').notNullable().defaultTo(0);
    t.integer('pages_crawled').notNullable().defaultTo(0);
    /** Same-site URLs seen, crawled or not; the home page is the first. */
    t.integer('pages_discovered').notNullable().defaultTo(1);
    t.boolean('budget_exhausted').notNullable().defaultTo(false);
    t.integer('page_requests').notNullable().defaultTo(0);
    t.integer('rate_limited_pages').notNullable().defaultTo(0);
    t.integer('external_targets').notNullable().defaultTo(0);
    t.text('robots').notNullable();
    t.text('sitemaps').nullable();
    t.text('probes').nullable();
    t.timestamp('observed_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('crawl_frontier', (t) => {
    t.text('crawl_id').notNullable().references('crawl_runs.crawl_id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.bigIncrements('seq', { primaryKey: false });
    t.text('state').notNullable();
    t.integer('depth').nullable();
    t.integer('step').nullable();
    t.specificType('found_on', 'text[]').notNullable().defaultTo('{}');
    t.integer('linked_from').notNullable().defaultTo(0);
    t.boolean('in_sitemap').notNullable().defaultTo(false);
    t.text('alias_key').notNullable();
    t.text('alias_of').nullable();
    t.primary(['crawl_id', 'url']);
  });
  await knex.raw(`CREATE INDEX crawl_frontier_queue ON crawl_frontier (crawl_id, depth, seq) WHERE state = 'queued'`);
  await knex.raw(`CREATE INDEX crawl_frontier_claimed ON crawl_frontier (crawl_id, step) WHERE state = 'claimed'`);
  await knex.raw('CREATE INDEX crawl_frontier_alias ON crawl_frontier (crawl_id, alias_key)');
  await knex.schema.createTable('crawl_pages', (t) => {
    t.text('crawl_id').notNullable().references('crawl_runs.crawl_id').onDelete('CASCADE');
    t.bigIncrements('seq', { primaryKey: false });
    t.text('url').notNullable();
    t.text('page').notNullable();
    // Text over 2 kB is compressed by Postgres itself (TOAST): no CPU spent on it in the worker.
    t.text('body').nullable();
    t.primary(['crawl_id', 'seq']);
  });
  await knex.schema.createTable('crawl_html_finals', (t) => {
    t.text('crawl_id').notNullable().references('crawl_runs.crawl_id').onDelete('CASCADE');
    t.text('final_url').notNullable();
    t.primary(['crawl_id', 'final_url']);
  });
  await knex.schema.createTable('crawl_targets', (t) => {
    t.text('crawl_id').notNullable().references('crawl_runs.crawl_id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.bigIncrements('seq', { primaryKey: false });
    /** 'resource' (a page loads it) or 'link' (another site's page a page links to). */
    t.text('kind').notNullable();
    t.text('resource_kind').nullable();
    t.boolean('external').notNullable();
    t.specificType('found_on', 'text[]').notNullable().defaultTo('{}');
    t.integer('linked_from').notNullable().defaultTo(0);
    t.integer('step').nullable();
    t.text('checked').nullable();
    t.primary(['crawl_id', 'url']);
  });
  await knex.raw('CREATE INDEX crawl_targets_unchecked ON crawl_targets (crawl_id, seq) WHERE checked IS NULL');
  await knex.schema.createTable('crawl_steps', (t) => {
    t.text('crawl_id').notNullable().references('crawl_runs.crawl_id').onDelete('CASCADE');
    t.text('step').notNullable();
    t.text('result').notNullable();
    t.primary(['crawl_id', 'step']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['crawl_steps', 'crawl_targets', 'crawl_html_finals', 'crawl_pages', 'crawl_frontier'])
    await knex.schema.dropTableIfExists(table);
  await knex.schema.dropTableIfExists('crawl_runs');
}
