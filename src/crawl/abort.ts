function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error('crawl aborted');
  error.name = 'AbortError';
  return error;
}

/** The crawl's abort signal as checks, races and sleeps that end as soon as the crawl is aborted. */
export class Aborter {
  private readonly aborted: Promise<never>;
  constructor(readonly signal: AbortSignal | undefined) {
    this.aborted = new Promise<never>((_, reject) => {
      if (!signal) return;
      if (signal.aborted) reject(abortError(signal));
      else signal.addEventListener('abort', () => reject(abortError(signal)), { once: true });
    });
    this.aborted.catch(() => undefined);
  }
  check(): void {
    if (this.signal?.aborted) throw abortError(this.signal);
  }
  race<T>(promise: Promise<T>): Promise<T> {
    if (!this.signal) return promise;
    return Promise.race([promise, this.aborted]);
  }
  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    return this.race(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))).finally(() =>
      clearTimeout(timer),
    );
  }
}

/** Runs `task` over `items` with at most `concurrency` at a time, in order of start; stops on abort. */
export async function runPool<T>(
  aborter: Aborter,
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < items.length) {
      aborter.check();
      await task(items[nextIndex++]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
