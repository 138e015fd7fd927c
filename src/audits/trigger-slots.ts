/**
 * Bounds how many trigger transactions one API process runs at once. A trigger can wait on its
 * account's (or test audit's) row lock while holding a pooled connection; without a bound, a burst
 * of triggers for one account would hold the whole pool and every read would queue behind them.
 * Waiting triggers queue here, first come first served, holding nothing.
 */
export class TriggerSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
