import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BrandingError } from './branding';
import type { LogoCheckReply, LogoCheckRequest } from './logo-check-worker';

export interface LogoCheckOptions {
  /** Worker threads, so at most this many logos are decoded at once; the rest wait their turn. */
  concurrency: number;
  /** A check running longer is stopped (its thread terminated) and the logo refused. */
  timeoutMs: number;
  /** An idle thread exits after this long; the next check starts a new one. */
  idleMs: number;
}

interface Job {
  logo: Buffer;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Test-embeds logos in worker threads: decoding an image is synchronous CPU work (a 4096×4096
 * PNG with alpha holds a thread for seconds), which must never stall the API's event loop.
 */
export class LogoChecks {
  private readonly idle: Worker[] = [];
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private readonly queue: Job[] = [];
  private running = 0;
  private nextId = 1;

  constructor(private readonly options: LogoCheckOptions = { concurrency: 1, timeoutMs: 15_000, idleMs: 30_000 }) {}

  /** Resolves when pdfkit can embed the logo; rejects with a BrandingError naming the problem. */
  check(logo: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ logo, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.options.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running++;
      this.run(this.idle.pop() ?? startWorker(), job);
    }
  }

  private run(worker: Worker, job: Job): void {
    const id = this.nextId++;
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
    const finish = (outcome: { refusal?: string; failure?: Error }, reusable: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onFailure).off('exit', onExit);
      this.running--;
      if (reusable) this.park(worker);
      else void worker.terminate();
      if (outcome.failure) job.reject(outcome.failure);
      else if (outcome.refusal) job.reject(new BrandingError('logo', outcome.refusal.replace(/^branding\.logo: /, '')));
      else job.resolve();
      this.pump();
    };
    const onMessage = (reply: LogoCheckReply) => {
      if (reply.id === id) finish({ refusal: reply.refusal }, true);
    };
    const onFailure = (err: Error) => finish({ failure: err }, false);
    const onExit = (code: number) => finish({ failure: new Error(`the logo check thread exited (${code})`) }, false);
    const timer = setTimeout(
      () => finish({ refusal: `took longer than ${this.options.timeoutMs / 1000} s to read` }, false),
      this.options.timeoutMs,
    );
    worker.on('message', onMessage).on('error', onFailure).on('exit', onExit);
    worker.postMessage({ id, logo: job.logo } satisfies LogoCheckRequest);
  }

  private park(worker: Worker): void {
    const timer = setTimeout(() => {
      this.idleTimers.delete(worker);
      this.idle.splice(this.idle.indexOf(worker), 1);
      void worker.terminate();
    }, this.options.idleMs);
    timer.unref();
    this.idleTimers.set(worker, timer);
    this.idle.push(worker);
  }

  /** Stops the idle threads (a running check finishes first). */
  async close(): Promise<void> {
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()));
  }
}

/**
 * The service runs TypeScript through tsx's loader, which worker threads do not inherit: a
 * .ts entry is loaded through tsx's require hook, a compiled .js one directly.
 */
function startWorker(): Worker {
  const extension = path.extname(__filename);
  const entry = path.join(__dirname, `logo-check-worker${extension}`);
  const worker =
    extension === '.ts'
      ? new Worker(
          `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(entry)});`,
          { eval: true },
        )
      : new Worker(entry);
  // A parked or busy thread never keeps the process alive on its own.
  worker.unref();
  return worker;
}
