/** How long a supervisor waits before starting a process again. */
export interface BackoffPolicy {
  /** Delay before the first restart. */
  initialMs: number;
  /** The delay doubles per crash up to this cap. */
  maxMs: number;
  /** A process that ran at least this long was healthy: the next crash starts over at initialMs. */
  stableMs: number;
}

/** 1 s doubling to 30 s; a minute of uptime resets it (README "Reliability"). */
const DEFAULT_RESTART_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 30_000, stableMs: 60_000 };

/**
 * Capped exponential back-off without a give-up: a crash loop slows down to one start per maxMs
 * but never stops, so a dependency that comes back (Temporal, Postgres) is picked up by itself.
 */
export class RestartBackoff {
  private crashes = 0;

  constructor(private readonly policy: BackoffPolicy = DEFAULT_RESTART_BACKOFF) {}

  /** The delay before the next start, given how long the process that just ended had been up. */
  next(upMs: number): number {
    if (upMs >= this.policy.stableMs) this.crashes = 0;
    const delay = Math.min(this.policy.maxMs, this.policy.initialMs * 2 ** Math.min(this.crashes, 30));
    this.crashes++;
    return delay;
  }
}
