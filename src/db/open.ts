import pg from 'pg';
import type { Config } from '../config';
import { startEmbeddedPostgres } from './embedded';

/**
 * The database to use: DATABASE_URL, else the embedded Postgres under the data folder — reused
 * when `npm start` already runs it, otherwise started here (and stopped by close()).
 */
export async function openDatabase(
  config: Config,
  opts: { startEmbedded: boolean },
): Promise<{ url: string; close(): Promise<void> }> {
  if (config.databaseUrl) return { url: config.databaseUrl, close: async () => undefined };
  const url = `postgres://postgres:postgres@127.0.0.1:${config.embeddedPostgresPort}/audit_service`;
  if (await reachable(url)) return { url, close: async () => undefined };
  if (!opts.startEmbedded) throw new Error(`no database: set DATABASE_URL or start the service first`);
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort });
  return { url: embedded.url, close: () => embedded.stop() };
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
