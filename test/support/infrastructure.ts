import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres, freePort } from '../../src/db/embedded';
import { ensureTemporalCli } from '../../src/setup/temporal-cli';
import { startDevServer } from '../../src/setup/temporal-dev-server';

export interface TestInfrastructure {
  stop(): Promise<void>;
}

/**
 * A real Temporal dev server (in memory, or with `temporalOnDisk` in a database file as `npm start`
 * runs it) and a fresh, empty Postgres database for one test run. With DATABASE_URL the database is
 * created on that server; without it an embedded Postgres runs in a temporary folder. Integration
 * tests find both through TEST_DATABASE_URL and TEST_TEMPORAL_ADDRESS.
 */
export async function startTestInfrastructure(
  log: (line: string) => void,
  opts: { temporalOnDisk?: boolean } = {},
): Promise<TestInfrastructure> {
  const stops: Array<() => Promise<void>> = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-test-'));
  try {
    const cliPath = await ensureTemporalCli(log);
    const dbFile = opts.temporalOnDisk ? path.join(tmp, 'temporal.sqlite') : undefined;
    const devServer = await startOnFreePort((port) => startDevServer({ cliPath, port, headless: true, dbFile, log }));
    stops.push(() => devServer.stop());
    process.env.TEST_TEMPORAL_ADDRESS = devServer.address;
    log(`temporal dev server at ${devServer.address}`);

    let serverUrl = process.env.DATABASE_URL;
    if (!serverUrl) {
      fs.chmodSync(tmp, 0o755);
      const embedded = await startOnFreePort((port) =>
        startEmbeddedPostgres({ dataDir: tmp, port, persistent: false }),
      );
      stops.push(() => embedded.stop());
      serverUrl = embedded.url;
      log(`embedded postgres at ${new URL(serverUrl).host}`);
    }
    const name = `audit_test_${randomBytes(4).toString('hex')}`;
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
    stops.push(() => adminQuery(serverUrl!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    process.env.TEST_DATABASE_URL = url.toString();
    log(`test database ${name}`);
  } catch (err) {
    await stopAll(stops);
    throw err;
  }
  return {
    async stop() {
      await stopAll(stops);
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * A free port can be taken by another process between the probe and the server's bind (the dev
 * server also opens internal ports): try again on another port, a few times.
 */
async function startOnFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= 3 || !/address already in use/i.test(String((err as Error).message))) throw err;
    }
  }
}

async function stopAll(stops: Array<() => Promise<void>>): Promise<void> {
  for (const stop of stops.reverse()) await stop().catch((err) => console.error('cleanup failed:', err));
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
