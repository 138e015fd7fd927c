import { RestartBackoff, type BackoffPolicy } from './restart-backoff';

/** starting: first start under way; restarting: it ended and waits for (or is in) its next start. */
export type SupervisedState = 'starting' | 'up' | 'restarting' | 'stopped';

/** One run of a supervised process. */
export interface Incarnation {
  pid: number | undefined;
  /** Settles once the process serves; rejects if it ends before. */
  ready: Promise<void>;
  /** Settles when the process has ended, saying how (e.g. "exited (SIGKILL)"). */
  exited: Promise<string>;
  /** Asks it to stop and waits until it has; idempotent. */
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  /** For the log, e.g. "worker". */
  name: string;
  /** Starts a new incarnation; may reject when it cannot start at all (then retried like a crash). */
  start(): Incarnation | Promise<Incarnation>;
  log(message: string): void;
  /** An incarnation already started by the caller, supervised from now on. */
  initial?: Incarnation;
  backoff?: BackoffPolicy;
  /** Once aborted nothing is restarted any more (the owner is shutting down and stops it in order). */
  signal?: AbortSignal;
}

export interface Supervised {
  state(): SupervisedState;
  /** Process id of the current incarnation (also while it is starting). */
  pid(): number | undefined;
  /** Settles the next time an incarnation serves (at once if one does). */
  ready(): Promise<void>;
  /** Stops restarting, then stops the current incarnation. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Keeps a process running: whenever it ends (or cannot start) it is started again after a capped
 * exponential back-off (restart-backoff.ts), forever, until stop().
 */
export function supervise(opts: SupervisorOptions): Supervised {
  const backoff = new RestartBackoff(opts.backoff);
  let state: SupervisedState = 'starting';
  let current: Incarnation | null = null;
  let stopRequested = false;
  const readyWaiters: Array<() => void> = [];
  let wakeUp: (() => void) | null = null;
  const halted = () => stopRequested || opts.signal?.aborted === true;
  opts.signal?.addEventListener('abort', () => wakeUp?.(), { once: true });

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (wakeUp = null));

  const runForever = async () => {
    let initial = opts.initial;
    while (!halted()) {
      const startedAt = Date.now();
      let ending: string;
      try {
        current = initial ?? (await opts.start());
        initial = undefined;
        if (halted()) break;
        await current.ready;
        if (halted()) break;
        if (state !== 'starting') opts.log(`${opts.name} is back`);
        state = 'up';
        for (const resolve of readyWaiters.splice(0)) resolve();
        ending = await current.exited;
      } catch (err) {
        ending = `failed to start: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (halted()) break;
      state = 'restarting';
      const delay = backoff.next(Date.now() - startedAt);
      opts.log(`${opts.name} ${ending}; restarting in ${delay % 1000 === 0 ? `${delay / 1000} s` : `${delay} ms`}`);
      await pause(delay);
    }
  };
  const running = runForever();

  return {
    state: () => state,
    pid: () => current?.pid,
    ready: () => (state === 'up' ? Promise.resolve() : new Promise<void>((resolve) => readyWaiters.push(resolve))),
    async stop() {
      stopRequested = true;
      wakeUp?.();
      // Ends the loop's wait for the current incarnation; one whose start was under way is stopped
      // once that start has settled.
      await current?.stop();
      await running;
      await current?.stop();
      state = 'stopped';
    },
  };
}
