/** Time source of the service; tests inject a settable one to cross month boundaries without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class SettableClock implements Clock {
  private offsetMs = 0;
  private fixed: Date | null = null;
  now(): Date {
    return this.fixed ? new Date(this.fixed) : new Date(Date.now() + this.offsetMs);
  }
  set(at: Date | string): void {
    this.fixed = new Date(at);
  }
  advance(ms: number): void {
    if (this.fixed) this.fixed = new Date(this.fixed.getTime() + ms);
    else this.offsetMs += ms;
  }
  reset(): void {
    this.fixed = null;
    this.offsetMs = 0;
  }
}
