import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { BrowserPageResult } from './stage-result';

export interface LighthouseRequest {
  id: number;
  port: number;
  url: string;
  /** How long the page may take to paint and load. */
  timeoutMs: number;
}
export type LighthouseReply = { id: number; result: BrowserPageResult } | { id: number; error: string };
type ChildMessage = LighthouseReply | { ready: true };

/** `.ts` under tsx (tests, `npm run start:tsx`), `.js` compiled (dist/). */
const EXTENSION = path.extname(__filename);

/** The Lighthouse process ended (crashed, or was stopped) under a run: not the page's doing. */
export class LighthouseProcessEnded extends Error {
  constructor(detail: string) {
    super(`the Lighthouse process ${detail}`);
  }
}

/**
 * Lighthouse runs in a Node process of its own, one per browser of the pool (docs/architecture.md,
 * "Failures"): a run the pool gives up on (stuck past its hard time-out) is ended with its
 * process instead of going on in the worker, and whatever Lighthouse leaves behind when its browser
 * goes away mid-run (a rejected protocol call nobody awaits) stays in that process, beside the
 * worker's Temporal SDK, which ends the worker on any rejection it cannot place. Started on first use
 * or by `start()`, and again after it ended.
 */
export class LighthouseProcess {
  private child: ChildProcess | null = null;
  private starting: Promise<ChildProcess> | null = null;
  private readonly pending = new Map<number, { resolve: (r: BrowserPageResult) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  /** Starts the process (Lighthouse loaded) if it is not running. */
  async start(): Promise<void> {
    await this.running();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** One Lighthouse run of `url` in the Chromium on `port`; rejects with LighthouseProcessEnded if the process ends under it. */
  async measure(port: number, url: string, timeoutMs: number): Promise<BrowserPageResult> {
    const child = await this.running();
    const id = this.nextId++;
    return new Promise<BrowserPageResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.send({ id, port, url, timeoutMs } satisfies LighthouseRequest);
    });
  }

  /** Ends the process at once (a run under way rejects); the next run starts a new one. */
  async stop(): Promise<void> {
    const child = this.child ?? (await this.starting?.catch(() => null));
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  private running(): Promise<ChildProcess> {
    if (this.child) return Promise.resolve(this.child);
    this.starting ??= this.spawn().finally(() => (this.starting = null));
    return this.starting;
  }

  private spawn(): Promise<ChildProcess> {
    const execArgv = [...process.execArgv];
    // Under mocha's in-process `--require tsx/cjs` the loader is not in execArgv: the child needs it for `.ts`.
    if (EXTENSION === '.ts' && !execArgv.some((arg) => arg.includes('tsx'))) execArgv.push('--import', 'tsx');
    const child = fork(path.join(__dirname, `lighthouse-child${EXTENSION}`), [], {
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise<ChildProcess>((resolve, reject) => {
      child.on('message', (message: ChildMessage) => {
        if ('ready' in message) {
          this.child = child;
          resolve(child);
          return;
        }
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (!waiter) return;
        if ('result' in message) waiter.resolve(message.result);
        else waiter.reject(new Error(message.error));
      });
      child.once('error', (err) => reject(new LighthouseProcessEnded(`could not be started (${err.message})`)));
      child.once('exit', (code, signal) => {
        const ended = new LighthouseProcessEnded(`ended (${signal ?? code})`);
        if (this.child === child) this.child = null;
        reject(ended);
        for (const waiter of this.pending.values()) waiter.reject(ended);
        this.pending.clear();
      });
    });
  }
}
