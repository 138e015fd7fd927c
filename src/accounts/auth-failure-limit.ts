/**
 * Failed authentications per client address, in a sliding window, in this instance's memory: an
 * address that presented more than `limit` bad keys within the window is refused until the oldest
 * failure leaves it. Bounded: the addresses seen longest ago are forgotten first.
 */
export class AuthFailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly options: { limit: number; windowMs: number; maxAddresses: number }) {}

  /** Seconds until this address may authenticate again, or 0 when it may now. */
  retryAfterSeconds(address: string, nowMs: number): number {
    const recent = this.recent(address, nowMs);
    if (recent.length < this.options.limit) return 0;
    const freesAt = recent[recent.length - this.options.limit] + this.options.windowMs;
    return Math.max(1, Math.ceil((freesAt - nowMs) / 1000));
  }

  recordFailure(address: string, nowMs: number): void {
    const recent = this.recent(address, nowMs);
    recent.push(nowMs);
    // Only the newest `limit` failures decide anything; keep no more.
    if (recent.length > this.options.limit) recent.splice(0, recent.length - this.options.limit);
    this.failures.delete(address);
    if (this.failures.size >= this.options.maxAddresses)
      this.failures.delete(this.failures.keys().next().value as string);
    this.failures.set(address, recent);
  }

  private recent(address: string, nowMs: number): number[] {
    const times = this.failures.get(address);
    if (!times) return [];
    const kept = times.filter((at) => at > nowMs - this.options.windowMs);
    if (kept.length === 0) this.failures.delete(address);
    else this.failures.set(address, kept);
    return kept;
  }
}
