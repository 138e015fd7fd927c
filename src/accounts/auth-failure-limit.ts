/** A failure counted ahead of the lookup it guards; released when the key turns out valid. */
export interface FailureSlot {
  readonly address: string;
  readonly at: number;
}

/**
 * Failed authentications per client address, in a sliding window, in this instance's memory: an
 * address may have at most `limit` failures within the window. A lookup takes its slot *before* it
 * starts (`reserve`, synchronous, so no two requests can take the same last slot however many
 * arrive at once) and gives it back when the key was valid (`release`). Bounded: the addresses seen
 * longest ago are forgotten first.
 */
export class AuthFailureLimiter {
  private readonly failures = new Map<string, FailureSlot[]>();

  constructor(private readonly options: { limit: number; windowMs: number; maxAddresses: number }) {}

  /** Seconds until this address may authenticate again, or 0 when it may now. */
  retryAfterSeconds(address: string, nowMs: number): number {
    const recent = this.recent(address, nowMs);
    if (recent.length < this.options.limit) return 0;
    const freesAt = recent[recent.length - this.options.limit].at + this.options.windowMs;
    return Math.max(1, Math.ceil((freesAt - nowMs) / 1000));
  }

  /** Counts a failure now, ahead of the lookup; null when the address is at its limit (nothing counted). */
  reserve(address: string, nowMs: number): FailureSlot | null {
    if (this.retryAfterSeconds(address, nowMs) > 0) return null;
    return this.add(address, nowMs);
  }

  /** The lookup found a valid key: its slot no longer counts. */
  release(slot: FailureSlot): void {
    const slots = this.failures.get(slot.address);
    const at = slots ? slots.indexOf(slot) : -1;
    if (at >= 0) slots!.splice(at, 1);
  }

  /** A failure that took no slot first (a key known as valid that has since been revoked). */
  recordFailure(address: string, nowMs: number): void {
    this.add(address, nowMs);
  }

  private add(address: string, nowMs: number): FailureSlot {
    const slot = { address, at: nowMs };
    const recent = this.recent(address, nowMs);
    recent.push(slot);
    // Only the newest `limit` failures decide anything; keep no more.
    if (recent.length > this.options.limit) recent.splice(0, recent.length - this.options.limit);
    this.failures.delete(address);
    if (this.failures.size >= this.options.maxAddresses)
      this.failures.delete(this.failures.keys().next().value as string);
    this.failures.set(address, recent);
    return slot;
  }

  private recent(address: string, nowMs: number): FailureSlot[] {
    const slots = this.failures.get(address);
    if (!slots) return [];
    const kept = slots.filter((slot) => slot.at > nowMs - this.options.windowMs);
    if (kept.length === 0) this.failures.delete(address);
    else if (kept.length < slots.length) this.failures.set(address, kept);
    return kept;
  }
}
