// Runs `temporal server start-dev` as a child process for local use (`npm start`) and tests.
//
// "Started" means the frontend answers gRPC for our namespace, not merely that the process
// is alive: callers connect a worker and a client right after this resolves.
import type { ChildProcess } from 'node:child_process';
import type { Connection } from '@temporalio/client';
import { ClosableConnection } from '../../temporal/closable-connection';
import { registerSearchAttributes, SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';
import { spawnTiedToParent } from '../supervision/tied-child';
import { forEachLine } from './lines';

export interface DevServerOptions {
  cliPath: string;
  /** Frontend gRPC port. */
  port: number;
  /** Web UI port; default port + 1000 (the CLI's own default). Ignored when headless. */
  uiPort?: number;
  /** SQLite file for persistence across restarts; omitted = in-memory. */
  dbFile?: string;
  /** Namespace to serve (created at start); default 'default'. */
  namespace?: string;
  /** Receives every output line of the server (already filtered to warnings and above). */
  log?: (line: string) => void;
  /** No Web UI. */
  headless?: boolean;
  /** How long to wait for the frontend to answer; default 60 s. */
  startTimeoutMs?: number;
}

export interface DevServer {
  /** host:port of the gRPC frontend. */
  address: string;
  uiUrl: string | null;
  pid: number;
  /** Settles when the process has ended, whatever the cause, saying how (e.g. "exited (SIGKILL)"). */
  exited: Promise<string>;
  /** SIGTERM, then SIGKILL if it has not exited after a grace period. Idempotent. */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 10_000;
const PROBE_INTERVAL_MS = 250;

/**
 * Starts to try: the CLI picks its internal ports itself (free when it looked), and on a busy machine
 * another process can take one before the server binds it; the server then panics at start. A port
 * the caller chose being taken is an error message, not a panic, and is not tried again.
 */
const START_TRIES = 3;

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  for (let tries = 1; ; tries++) {
    try {
      return await startDevServerOnce(opts);
    } catch (err) {
      if (tries >= START_TRIES || !(err instanceof StartCrashError)) throw err;
      opts.log?.(`dev server crashed at start (${err.panic}); starting it again`);
    }
  }
}

/** The server panicked at start, as when a port it chose was taken meanwhile: worth another try. */
class StartCrashError extends Error {
  constructor(
    message: string,
    readonly panic: string,
  ) {
    super(message);
  }
}

async function startDevServerOnce(opts: DevServerOptions): Promise<DevServer> {
  const host = '127.0.0.1'; // loopback only: the dev server has no auth
  const namespace = opts.namespace ?? 'default';
  const uiPort = opts.uiPort ?? Math.min(opts.port + 1000, 65535);
  const log = opts.log ?? (() => {});
  const address = `${host}:${opts.port}`;

  let stopping: Promise<void> | null = null;
  const child = spawnTiedToParent(opts.cliPath, devServerArgs(opts, host, namespace, uiPort), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Once we are stopping it, the server logs a burst of expected "connection refused" /
  // "graceful_stop" warnings from its internal workers: keep them out of the caller's log.
  const tail = keepStartOutput(child, (line) => {
    if (stopping === null) log(line);
  });

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // A failed spawn (e.g. ENOENT) emits 'error' and never 'exit'.
    child.once('error', () => {
      if (child.pid === undefined) resolve({ code: null, signal: null });
    });
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    process.removeListener('exit', killOnExit);
  });
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => {}); // observed via the race below

  // Last line of defence if the parent exits without calling stop() (process.exit, crash).
  // Signals that kill the parent are covered by the parent-death signal or the process group.
  function killOnExit() {
    if (!hasExited) child.kill('SIGKILL');
  }
  process.once('exit', killOnExit);

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (hasExited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    })();
    return stopping;
  };

  try {
    const earlyExit = exited.then(({ code, signal }) => {
      const output = tail.join('\n');
      const message = `temporal server start-dev exited before it was ready (${signal ?? `exit ${code}`}):\n${output}`;
      const panic = tail.find((line) => line.startsWith('panic'));
      throw panic ? new StartCrashError(message, panic) : new Error(message);
    });
    const gaveUp = () => hasExited || stopping !== null;
    const ready = waitUntilReady(address, namespace, opts.startTimeoutMs ?? 60_000, tail, gaveUp);
    // spawnError first: on a failed spawn it carries the real cause (ENOENT) rather than "exited".
    await Promise.race([spawnError, ready, earlyExit]);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    address,
    uiUrl: opts.headless ? null : `http://${host}:${uiPort}`,
    pid: child.pid!,
    exited: exited.then(({ code, signal }) => `exited (${signal ?? code})`),
    stop,
  };
}

/** The command line of `temporal server start-dev`, loopback only. */
function devServerArgs(opts: DevServerOptions, host: string, namespace: string, uiPort: number): string[] {
  const args = ['server', 'start-dev', '--ip', host, '--port', String(opts.port), '--log-level', 'warn'];
  args.push(...(opts.headless ? ['--headless'] : ['--ui-port', String(uiPort)]));
  // Write-ahead log, synced at checkpoints rather than on every commit: a crash of the process loses
  // nothing, a power cut at most the last moments; in rollback-journal mode every commit was an fsync
  // and the server kept up with a third of the audits (docs/operations.md "Capacity").
  if (opts.dbFile) {
    args.push(
      '--db-filename',
      opts.dbFile,
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
    );
  }
  // The CLI always creates "default" and prepends it to this list; passing it again would
  // register the same namespace twice.
  if (namespace !== 'default') args.push('--namespace', namespace);
  // Latency and throughput of one server (docs/operations.md "Capacity"): one partition per task queue
  // (a single server has no use for the default four), and history's task queues read 200 times a second
  // instead of 20 — at 20, a task such as a child workflow's first workflow task waited up to 50 ms.
  const dynamicConfig = {
    'matching.numTaskqueueReadPartitions': 1,
    'matching.numTaskqueueWritePartitions': 1,
    'history.transferProcessorMaxPollRPS': 200,
    'history.timerProcessorMaxPollRPS': 200,
  };
  for (const [key, value] of Object.entries(dynamicConfig)) args.push('--dynamic-config-value', `${key}=${value}`);
  // Registered in every namespace the CLI creates. NOTE: only for namespaces it creates; with an
  // existing db file they are not added again, hence registerSearchAttributes() in waitUntilReady.
  args.push(...searchAttributeCliArgs());
  return args;
}

/**
 * Passes every non-blank output line to `log` and keeps, for the error message if it dies before it
 * is ready, its first lines (a panic's cause comes before its stack) and its last 40.
 */
function keepStartOutput(child: ChildProcess, log: (line: string) => void): string[] {
  const tail: string[] = [];
  let kept = 0;
  const onLine = (line: string) => {
    if (!line.trim()) return;
    tail.push(line);
    if (++kept > 50) tail.splice(10, 1);
    log(line);
  };
  forEachLine(child.stdout, onLine);
  forEachLine(child.stderr, onLine);
  return tail;
}

/** Polls until the frontend serves `namespace`, then makes sure our search attributes exist. */
async function waitUntilReady(
  address: string,
  namespace: string,
  timeoutMs: number,
  tail: string[],
  gaveUp: () => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline && !gaveUp()) {
    let connection: Connection | undefined;
    try {
      // lazy + ensureConnected rather than connect(): a failed connect() leaves its gRPC channel
      // open, while here we always own the connection and close it below.
      connection = ClosableConnection.open({ address, connectTimeout: '2 seconds' });
      await connection.ensureConnected();
      // describeNamespace rather than getSystemInfo: the namespace must be loaded, not only the port open.
      await connection.workflowService.describeNamespace({ namespace });
    } catch (err) {
      lastError = err;
      await connection?.close().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
      continue;
    }
    try {
      // Outside the retry loop: a failure here is a real error, not "not up yet".
      await registerSearchAttributes(connection, namespace);
      return;
    } finally {
      await connection.close().catch(() => {});
    }
  }
  if (gaveUp()) return; // the caller is already reporting why
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(
    `Temporal dev server at ${address} did not answer within ${timeoutMs} ms (last error: ${reason})\n${tail.join('\n')}`,
  );
}

/** `--search-attribute Name=Type` arguments for `temporal server start-dev`. */
export function searchAttributeCliArgs(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}
