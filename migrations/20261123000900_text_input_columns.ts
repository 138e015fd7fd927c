import type { Knex } from 'knex';

/**
 * Columns that hold what clients send become text: an audit's origin can be 267 characters (a
 * 253-character host, scheme and port) and a webhook_url up to 2048 (more once percent-encoded),
 * both past varchar(255). Postgres changes varchar to text without rewriting the table.
 */
const COLUMNS = [
  ['audits', 'domain'],
  ['audits', 'webhook_url'],
  ['audits', 'site_key'],
] as const;

export async function up(knex: Knex): Promise<void> {
  for (const [table, column] of COLUMNS) {
    if (await knex.schema.hasColumn(table, column))
      await knex.raw('ALTER TABLE ?? ALTER COLUMN ?? TYPE text', [table, column]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, column] of COLUMNS) {
    if (await knex.schema.hasColumn(table, column))
      await knex.raw('ALTER TABLE ?? ALTER COLUMN ?? TYPE varchar(255)', [table, column]);
  }
}
