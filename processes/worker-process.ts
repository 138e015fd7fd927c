import { execFile, fork } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import type { BackoffPolicy } from '../src/supervision/restart-backoff';
import { supervise, type Incarnation, type Supervised } from '../src/supervision/supervisor';

export interface SupervisedWorker extends Supervised {
  /** The current worker process serves its task queue. */
  running(): boolean;
}

// The workflow code is bundled once per process, in a short-lived child; every supervised worker
// (audits and reports, and their restarts) loads the file. Removed when the last supervisor stops.
const bundlePath = path.join(os.tmpdir(), `audit-service-workflows-${process.pid}.js`);
let bundling: Promise<void> | null = null;
let supervisors = 0;

/** `.ts` under tsx (tests, `npm run start:tsx`), `.js` compiled (dist/processes, `npm start`). */
const EXTENSION = path.extname(__filename);

/** How long a worker may take to finish its tasks after SIGTERM before it is killed. */
const STOP_GRACE_MS = 30_000;

/**
 * Runs processes/worker-main as a child process (compiled, or through the tsx loader it inherits in execArgv) and
 * restarts it whenever it ends, with capped exponential back-off, forever (src/supervision/supervisor.ts): a
 * crash-looping worker slows down but never stops the API beside it. Returns once the workflow
 * bundle is built, without waiting for the worker (`ready()`): it may be waiting for Temporal.
 * `env.WORKER_KIND` says which worker it is (audits by default, or reports).
 */
export async function superviseWorker(
  env: NodeJS.ProcessEnv,
  log: (message: string) => void,
  options: { backoff?: BackoffPolicy; signal?: AbortSignal } = {},
): Promise<SupervisedWorker> {
  bundling ??= promisify(execFile)(process.execPath, [
    ...process.execArgv,
    path.join(__dirname, `bundle-main${EXTENSION}`),
    bundlePath,
  ]).then(
    () => undefined,
    (err: unknown) => {
      bundling = null;
      throw err;
    },
  );
  await bundling;
  supervisors++;
  const workerEnv = { ...env, WORKFLOW_BUNDLE_PATH: bundlePath };
  const supervised = supervise({
    name: env.WORKER_KIND === 'reports' ? 'report worker' : 'worker',
    start: () => forkWorker(workerEnv),
    log,
    ...options,
  });
  let released = false;
  return {
    ...supervised,
    running: () => supervised.state() === 'up',
    async stop() {
      await supervised.stop();
      if (released) return;
      released = true;
      if (--supervisors === 0) {
        fs.rmSync(bundlePath, { force: true });
        bundling = null;
      }
    },
  };
}

/**
 * How a worker's memory is laid out (docs/operations.md, "Worker memory"): glibc gives each thread
 * that allocates its own malloc arena (a Temporal worker has many: the SDK's core, workflow threads),
 * so two arenas instead of eight per core; and a young generation of at most 2 × 16 MiB, where V8
 * grows it to 2 × 64 MiB under a crawl's allocation rate. Measured with bench:wholesite: a
 * 100,000-page crawl at 400–480 MiB instead of 500–820 MiB. The audit worker's old generation may
 * grow by half of what the last full collection left live, where V8 allows up to four times: the
 * analysis of a large site makes garbage fast, and that headroom was most of its peak, growing with
 * the site (analysis of a stored 100,000-page crawl alone: 718 MiB at V8's default, 414 at twice,
 * 354 at one and a half, for 11 % and then 7–17 % more CPU time; docs/architecture.md, "Durable
 * crawl", Memory). An operator's own settings win.
 */
function memoryLayout(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; execArgv: string[] } {
  const execArgv = [...process.execArgv];
  const unset = (flag: string) =>
    !execArgv.some((arg) => arg.startsWith(flag)) && !(env.NODE_OPTIONS ?? '').includes(flag);
  if (unset('--max-semi-space-size')) execArgv.push('--max-semi-space-size=16');
  const auditWorker = env.WORKER_KIND === undefined || env.WORKER_KIND === 'audits';
  if (auditWorker && unset('--heap-growing-percent')) execArgv.push('--heap-growing-percent=50');
  // The report worker collects garbage after each render (src/reports/pdf/memory.ts), the audit
  // worker after an analyzer's finish that left much of it (src/analyzers/heap-release.ts).
  if (env.WORKER_KIND === 'reports' || auditWorker) execArgv.push('--expose-gc');
  return { env: { MALLOC_ARENA_MAX: '2', ...env }, execArgv };
}

/** One worker process; it reports ready with an IPC message once its Temporal worker runs. */
function forkWorker(workerEnv: NodeJS.ProcessEnv): Incarnation {
  const { env, execArgv } = memoryLayout(workerEnv);
  const proc = fork(path.join(__dirname, `worker-main${EXTENSION}`), [], { env, execArgv, stdio: 'inherit' });
  const exited = new Promise<string>((resolve) => {
    proc.once('exit', (code, signal) => resolve(`exited (${signal ?? code})`));
    // A failed spawn emits 'error' and never 'exit'.
    proc.once('error', (err) => {
      if (proc.pid === undefined) resolve(`could not be started (${err.message})`);
    });
  });
  const ready = new Promise<void>((resolve, reject) => {
    proc.once('message', () => resolve());
    void exited.then((ending) => reject(new Error(`${ending} before it was ready`)));
  });
  ready.catch(() => undefined); // observed by the supervisor
  return {
    pid: proc.pid,
    ready,
    exited,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return;
      proc.kill('SIGTERM');
      const timeout = setTimeout(() => proc.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timeout);
    },
  };
}
