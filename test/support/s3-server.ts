import { spawn, type ChildProcess } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, mkdtemp, open, readFile, rename, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ReportObjectStore } from '../../src/config';

/**
 * A real S3-compatible server for the object-storage tests: Versity's versitygw, one Go binary
 * (Apache-2.0, where MinIO's server is AGPL) whose posix backend keeps each bucket as a folder and
 * each object as a file, so tests can look at what was stored. It is built from the Go module proxy
 * as the Temporal CLI is (src/setup/temporal-cli.ts), once per machine, into
 * ~/.cache/audit-service/versitygw/v<version>/. VERSITYGW_PATH names a binary to use instead.
 */
export const VERSITYGW_VERSION = '1.8.0';
const MODULE = 'github.com/versity/versitygw/cmd/versitygw';

export const S3_TEST_CREDENTIALS = {
  accessKeyId: 'audit-test-access',
  secretAccessKey: 'audit-test-secret-0123456789',
};

type Log = (line: string) => void;

export function versitygwCachePath(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'audit-service', 'versitygw', `v${VERSITYGW_VERSION}`, 'versitygw');
}

const isExecutable = (file: string) =>
  access(file, fsConstants.X_OK).then(
    () => true,
    () => false,
  );

/** The binary: VERSITYGW_PATH, else the cached build, else a `go install` (minutes) under a lock. */
export async function ensureVersitygw(log: Log = (l) => console.log(`  [s3] ${l}`)): Promise<string> {
  if (process.env.VERSITYGW_PATH) return process.env.VERSITYGW_PATH;
  const target = versitygwCachePath();
  const lock = `${path.dirname(target)}.lock`;
  await mkdir(path.dirname(path.dirname(target)), { recursive: true });
  let announced = false;
  for (;;) {
    if (await isExecutable(target)) return target;
    const held = await open(lock, 'wx').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return null;
      throw err;
    });
    if (held) {
      await held.writeFile(String(process.pid));
      await held.close();
      try {
        if (!(await isExecutable(target))) await goInstall(target, log);
        return target;
      } finally {
        await rm(lock, { force: true });
      }
    }
    if (await lockIsStale(lock)) await rm(lock, { force: true });
    else if (!announced) {
      log(`another process is building versitygw (lock ${lock}); waiting for it`);
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function lockIsStale(lock: string): Promise<boolean> {
  try {
    const [pid, st] = await Promise.all([readFile(lock, 'utf8'), stat(lock)]);
    if (Date.now() - st.mtimeMs > 60 * 60_000) return true;
    if (!pid) return Date.now() - st.mtimeMs > 10_000;
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function goInstall(target: string, log: Log): Promise<void> {
  const gobin = await mkdtemp(path.join(path.dirname(path.dirname(target)), '.build-'));
  const started = Date.now();
  log(`building versitygw v${VERSITYGW_VERSION} with Go (first run on this machine only; a few minutes)`);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('go', ['install', `${MODULE}@v${VERSITYGW_VERSION}`], {
        env: { ...process.env, GOBIN: gobin },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let tail = '';
      child.stderr.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-4000)));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`go install ${MODULE} failed (exit ${code}):\n${tail}`)),
      );
    });
    await mkdir(path.dirname(target), { recursive: true });
    await rename(path.join(gobin, 'versitygw'), target);
    log(`built ${target} in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    await rm(gobin, { recursive: true, force: true });
  }
}

export interface S3TestServer {
  endpoint: string;
  /** The posix backend's root: each bucket a folder, each object a file at <bucket>/<key>. */
  dataDir: string;
  /** Settings as REPORT_STORAGE_URL=s3://<bucket>/<prefix> with S3_ENDPOINT and the test credentials give them. */
  settings(bucket: string, prefix?: string): ReportObjectStore;
  /** Creates a bucket (a folder of the posix backend). */
  createBucket(name: string): Promise<void>;
  /** Stops the server, keeping its data: `start()` brings the same store back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

/** Starts versitygw on a free loopback port with a fresh temporary data folder. */
export async function startS3Server(): Promise<S3TestServer> {
  const binary = await ensureVersitygw();
  const dir = await mkdtemp(path.join(os.tmpdir(), 's3-test-'));
  const data = path.join(dir, 'data');
  const sidecar = path.join(dir, 'meta'); // metadata beside the data: works where xattrs do not
  await mkdir(data);
  await mkdir(sidecar);
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;

  const start = async () => {
    const args = ['--access', S3_TEST_CREDENTIALS.accessKeyId, '--secret', S3_TEST_CREDENTIALS.secretAccessKey];
    child = spawn(binary, [...args, '--port', `127.0.0.1:${port}`, 'posix', '--sidecar', sidecar, data], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    await waitForPort(port, child, () => stderr);
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  await start();
  return {
    endpoint,
    dataDir: data,
    settings: (bucket, prefix = '') => ({
      bucket,
      prefix: prefix ? `${prefix.replace(/\/+$/, '')}/` : '',
      endpoint,
      region: 'us-east-1',
      credentials: S3_TEST_CREDENTIALS,
    }),
    createBucket: (name) => mkdir(path.join(data, name)).then(() => undefined),
    stop,
    start,
    destroy: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`versitygw exited with ${child.exitCode}: ${stderr()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`versitygw did not listen on port ${port} within 20 s: ${stderr()}`);
}
