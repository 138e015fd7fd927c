import { execFile, fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';

export interface SupervisedWorker {
  running(): boolean;
  /** Process id of the current worker process. */
  pid(): number | undefined;
  /** Settles when the current worker process reports ready (e.g. after a restart). */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

// The workflow code is bundled once per process, in a short-lived child; every supervised worker
// (audits and reports, and their restarts) loads the file. Removed when the last supervisor stops.
const bundlePath = path.join(os.tmpdir(), `audit-service-workflows-${process.pid}.js`);
let bundling: Promise<void> | null = null;
let supervisors = 0;

/**
 * Runs src/worker-main.ts as a child process (it inherits the tsx loader through execArgv) and
 * restarts it when it dies; gives up, calling onGiveUp, after 5 crashes within a minute.
 * `env.WORKER_KIND` says which worker it is (audits by default, or reports).
 */
export async function superviseWorker(env: NodeJS.ProcessEnv, log: (message: string) => void, onGiveUp: () => void): Promise<SupervisedWorker> {
  bundling ??= promisify(execFile)(process.execPath, [...process.execArgv, path.join(__dirname, '..', 'temporal', 'bundle-main.ts'), bundlePath]).then(
    () => undefined,
    (err: unknown) => {
      bundling = null;
      throw err;
    },
  );
  await bundling;
  supervisors++;
  const kind = env.WORKER_KIND === 'reports' ? 'report worker' : 'worker';
  env = { ...env, WORKFLOW_BUNDLE_PATH: bundlePath };
  const crashes: number[] = [];
  let stopping = false;
  let child: ChildProcess | null = null;
  let ready = false;

  const spawnOnce = () =>
    new Promise<void>((resolve, reject) => {
      ready = false;
      const proc = fork(path.join(__dirname, 'worker-main.ts'), [], { env, stdio: 'inherit' });
      child = proc;
      proc.once('message', () => {
        ready = true;
        resolve();
      });
      proc.once('exit', (code, signal) => {
        ready = false;
        if (stopping) return;
        reject(new Error(`${kind} exited (${signal ?? code}) before it was ready`));
        crashes.push(Date.now());
        while (crashes.length && crashes[0] < Date.now() - 60_000) crashes.shift();
        if (crashes.length >= 5) {
          log(`the ${kind} keeps crashing: giving up`);
          onGiveUp();
          return;
        }
        log(`${kind} exited (${signal ?? code}); restarting`);
        setTimeout(() => {
          readyPromise = spawnOnce();
          readyPromise.catch((err) => log(String(err)));
        }, 1000);
      });
    });

  let readyPromise = spawnOnce();
  await readyPromise;
  return {
    running: () => ready,
    pid: () => (child as ChildProcess | null)?.pid,
    ready: () => readyPromise,
    async stop() {
      stopping = true;
      const proc = child as ChildProcess | null;
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
        proc.kill('SIGTERM');
        const timeout = setTimeout(() => proc.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timeout);
      }
      if (--supervisors === 0) {
        fs.rmSync(bundlePath, { force: true });
        bundling = null;
      }
    },
  };
}
