// Locates (or, as a last resort, builds) the `temporal` CLI that runs the local dev server.
//
// The SDK's usual route (downloading a release binary from temporal.download) is not available
// where this service is developed, but the Go module proxy is, so the fallback is `go install`
// of a pinned CLI version into a per-user cache shared by every checkout and process.
import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { forEachLine } from './lines';

/** Pinned CLI version: its dev server (Temporal Server 1.29.x) is what the service is tested on. */
export const TEMPORAL_CLI_VERSION = '1.5.1';
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
const BIN_NAME = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/** A lock older than this is considered abandoned even if its owner looks alive (pid reuse). */
const LOCK_MAX_AGE_MS = 2 * 60 * 60 * 1000;
const LOCK_POLL_MS = 1000;
const HEARTBEAT_MS = 30_000;

type Log = (msg: string) => void;
const defaultLog: Log = (msg) => process.stderr.write(`[temporal-cli] ${msg}\n`);

/** `${XDG_CACHE_HOME or ~/.cache}/audit-service/temporal-cli`: shared by all checkouts of the service. */
export function temporalCliCacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'audit-service', 'temporal-cli');
}

/** Where the pinned build lives once built. */
export function cachedTemporalCliPath(): string {
  return path.join(temporalCliCacheRoot(), `v${TEMPORAL_CLI_VERSION}`, BIN_NAME);
}

/**
 * Returns the path of a usable `temporal` binary, in this order:
 * 1. `TEMPORAL_CLI_PATH` (an explicit choice: if it is wrong we fail rather than guess);
 * 2. a `temporal` on PATH (the user installed one on purpose, whatever its version);
 * 3. the cached build of TEMPORAL_CLI_VERSION;
 * 4. a fresh `go install` of TEMPORAL_CLI_VERSION into the cache (minutes; progress goes to `log`).
 */
export async function ensureTemporalCli(log: Log = defaultLog): Promise<string> {
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    const resolved = path.resolve(explicit);
    if (!(await isExecutableFile(resolved))) {
      throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    }
    return resolved;
  }

  const onPath = await findOnPath(BIN_NAME);
  if (onPath) return onPath;

  const cached = cachedTemporalCliPath();
  if (await isExecutableFile(cached)) return cached;

  return buildWithLock(cached, log);
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const st = await stat(file);
    if (!st.isFile()) return false;
    await access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function findOnPath(name: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue; // an empty entry would mean "cwd": never pick up a binary from there
    const candidate = path.join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Build, serialized across processes by a lock file next to the cache folder.

interface LockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
}

async function buildWithLock(target: string, log: Log): Promise<string> {
  const root = temporalCliCacheRoot();
  await mkdir(root, { recursive: true });
  const lockPath = path.join(root, `v${TEMPORAL_CLI_VERSION}.lock`);
  let announcedWait = false;

  for (;;) {
    // Re-checked on every turn: another process may have finished the build while we waited.
    if (await isExecutableFile(target)) return target;

    const release = await tryLock(lockPath);
    if (release) {
      try {
        if (await isExecutableFile(target)) return target;
        await build(root, target, log);
        return target;
      } finally {
        await release();
      }
    }

    if (await lockIsStale(lockPath)) {
      // Worst case of this check racing with another waiter is a duplicate build, which is
      // still safe: each build has its own temp folder and the final rename is atomic.
      log(`removing stale lock ${lockPath}`);
      await rm(lockPath, { force: true });
      continue;
    }
    if (!announcedWait) {
      log(`another process is building the Temporal CLI (lock ${lockPath}); waiting for it`);
      announcedWait = true;
    }
    await sleep(LOCK_POLL_MS);
  }
}

/** Creates the lock file exclusively; returns its release function, or null if it is held. */
async function tryLock(lockPath: string): Promise<(() => Promise<void>) | null> {
  let handle;
  try {
    handle = await open(lockPath, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw err;
  }
  const info: LockInfo = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() };
  try {
    await handle.writeFile(JSON.stringify(info));
  } finally {
    await handle.close();
  }
  return () => rm(lockPath, { force: true });
}

async function lockIsStale(lockPath: string): Promise<boolean> {
  let text: string;
  let mtimeMs: number;
  try {
    text = await readFile(lockPath, 'utf8');
    mtimeMs = (await stat(lockPath)).mtimeMs;
  } catch {
    return false; // gone already: the next turn will take it
  }
  if (Date.now() - mtimeMs > LOCK_MAX_AGE_MS) return true;
  let info: LockInfo;
  try {
    info = JSON.parse(text) as LockInfo;
  } catch {
    // Owner is between open() and write(), or died there: give it a few seconds.
    return Date.now() - mtimeMs > 10_000;
  }
  if (info.hostname !== os.hostname()) return false; // shared cache dir: cannot probe the pid
  return !processIsAlive(info.pid);
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Must be called with the lock held. */
async function build(root: string, target: string, log: Log): Promise<void> {
  await assertGoAvailable();

  // Leftover temp folders can only come from builds that died (we hold the lock): reclaim space.
  const prefix = `.build-v${TEMPORAL_CLI_VERSION}-`;
  for (const entry of await readdir(root)) {
    if (entry.startsWith(prefix)) await rm(path.join(root, entry), { recursive: true, force: true });
  }

  // Build into a private folder on the same filesystem, then rename: nobody ever sees a
  // half-written binary at `target`, even if this process is killed mid-build.
  const tmp = await mkdtemp(path.join(root, prefix));
  try {
    log(`building Temporal CLI v${TEMPORAL_CLI_VERSION} with Go (first run only; this takes a few minutes)`);
    const started = Date.now();
    await runGoInstall(tmp, log);
    const built = path.join(tmp, BIN_NAME);
    if (!(await isExecutableFile(built))) throw new Error(`go install finished but ${built} is missing`);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(built, target);
    log(`built ${target} in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

const NO_GO_MESSAGE =
  `Temporal CLI not found and Go is not installed to build it. Either install Go 1.25 or newer ` +
  `(https://go.dev/dl/; an older Go >= 1.21 also works if it may download a newer toolchain), ` +
  `or install the Temporal CLI v${TEMPORAL_CLI_VERSION} (https://docs.temporal.io/cli) and put ` +
  `\`temporal\` on PATH, or set TEMPORAL_CLI_PATH to its location, ` +
  `or set TEMPORAL_ADDRESS to use an already-running Temporal server.`;

async function assertGoAvailable(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['version'], { stdio: 'ignore' });
    child.on('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new Error(NO_GO_MESSAGE) : err));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`\`go version\` exited with ${code}`))));
  });
}

function runGoInstall(gobin: string, log: Log): Promise<void> {
  // -X Version: a plain `go install` would report "0.0.0-DEV"; say which version it really is.
  const args = [
    'install',
    `-ldflags=-X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
    `${CLI_MODULE}@v${TEMPORAL_CLI_VERSION}`,
  ];
  return new Promise<void>((resolve, reject) => {
    const child = spawn('go', args, { env: { ...process.env, GOBIN: gobin }, stdio: ['ignore', 'pipe', 'pipe'] });
    // Don't leave a compiler running if we exit (the lock would be released under it).
    const killChild = () => child.kill('SIGKILL');
    process.once('exit', killChild);

    const tail: string[] = [];
    const onLine = (line: string) => {
      if (!line.trim()) return;
      tail.push(line);
      if (tail.length > 50) tail.shift();
      log(line);
    };
    forEachLine(child.stdout, onLine);
    forEachLine(child.stderr, onLine);

    // Compiling prints nothing for minutes after the downloads: show that it is still alive.
    const started = Date.now();
    const heartbeat = setInterval(
      () => log(`still building Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)`),
      HEARTBEAT_MS,
    );
    heartbeat.unref();

    const done = (err?: Error) => {
      clearInterval(heartbeat);
      process.removeListener('exit', killChild);
      if (err) reject(err);
      else resolve();
    };
    child.on('error', (err: NodeJS.ErrnoException) => done(err.code === 'ENOENT' ? new Error(NO_GO_MESSAGE) : err));
    child.on('close', (code, signal) => {
      if (code === 0) done();
      else
        done(
          new Error(
            `go install ${CLI_MODULE}@v${TEMPORAL_CLI_VERSION} failed (${signal ?? `exit ${code}`}):\n${tail.join('\n')}`,
          ),
        );
    });
  });
}
