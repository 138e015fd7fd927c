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

/**
 * Runs src/worker-main.ts as a child process (it inherits the tsx loader through execArgv) and
 * restarts it when it dies; gives up, calling onGiveUp, after 5 crashes within a minute.
 */
export async function superviseWorker(env: NodeJS.ProcessEnv, log: (message: string) => void, onGiveUp: () => void): Promise<SupervisedWorker> {
  // Bundle the workflow code once, in a short-lived process; every (re)started worker loads the file.
  const bundlePath = path.join(os.tmpdir(), `audit-service-workflows-${process.pid}.js`);
  await promisify(execFile)(process.execPath, [...process.execArgv, path.join(__dirname, '..', 'temporal', 'bundle-main.ts'), bundlePath]);
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
        reject(new Error(`worker exited (${signal ?? code}) before it was ready`));
        crashes.push(Date.now());
        while (crashes.length && crashes[0] < Date.now() - 60_000) crashes.shift();
        if (crashes.length >= 5) {
          log('the worker keeps crashing: giving up');
          onGiveUp();
          return;
        }
        log(`worker exited (${signal ?? code}); restarting`);
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
      fs.rmSync(bundlePath, { force: true });
    },
  };
}
