import knexFactory, { Knex } from 'knex';
import fs from 'node:fs';
import path from 'node:path';

export type Db = Knex;

/** migrations/, or dist/migrations/ when this runs compiled (src/setup/build.cjs). */
const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'migrations');

/**
 * The migrations as TypeScript (tsx) or compiled JavaScript alike, each known by its source name
 * (`…_initial.ts`, as knex_migrations has recorded them), so neither way of running sees the other's
 * as missing or new.
 */
const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () =>
    fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
      .sort(),
  getMigrationName: (file) => file.replace(/\.js$/, '.ts'),
  getMigration: async (file) => require(path.join(MIGRATIONS_DIR, file)) as Knex.Migration,
};

export function createDb(databaseUrl: string, pool: { min?: number; max?: number } = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

/** Applies pending migrations; safe to call from several processes at once (knex takes a lock). */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}
