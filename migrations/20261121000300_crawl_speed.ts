import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Measured crawl speed (exponentially weighted), for estimated completion times.
  await knex.schema.createTable('crawl_speed', (t) => {
    t.integer('id').primary();
    t.double('ms_per_page').notNullable();
    t.integer('samples').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await knex.raw('ALTER TABLE crawl_speed ADD CONSTRAINT crawl_speed_single_row CHECK (id = 1)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('crawl_speed');
}
