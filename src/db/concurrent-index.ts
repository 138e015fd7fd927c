import type { Knex } from 'knex';

/**
 * Builds an index without blocking writes (CREATE INDEX CONCURRENTLY, outside a transaction: the
 * migration's `config = { transaction: false }`). A build that was killed leaves an invalid index
 * that IF NOT EXISTS would keep: it is dropped and built again. `definition` is `table (columns)`.
 */
export async function buildIndexConcurrently(knex: Knex, name: string, definition: string): Promise<void> {
  const invalid = await knex.raw(
    `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid`,
    [name],
  );
  if (invalid.rows.length) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${definition}`);
}
