import knexFactory, { Knex } from 'knex';
import path from 'node:path';

export type Db = Knex;

export function createDb(databaseUrl: string, pool: { min?: number; max?: number } = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    migrations: {
      directory: path.join(__dirname, '..', '..', 'migrations'),
      loadExtensions: ['.ts'],
      tableName: 'knex_migrations',
    },
  });
}

/** Applies pending migrations; safe to call from several processes at once (knex takes a lock). */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}
