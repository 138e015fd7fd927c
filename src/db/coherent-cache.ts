/**
 * A bounded in-memory cache kept coherent by a ChangeFeed. A value read from the database is only
 * stored if no invalidation of its key arrived while it was being read (the key's generation is
 * unchanged), so a late write of stale data cannot follow an invalidation.
 */
export class CoherentCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly generations = new Map<string, number>();
  private epoch = 0;

  constructor(private readonly options: { maxEntries: number; ttlMs: number; enabled: () => boolean }) {}

  /** The cached value, or the loaded one (stored when `storable(value)` allows it). */
  async get(key: string, load: () => Promise<V>, storable: (value: V) => boolean = () => true): Promise<V> {
    if (!this.options.enabled()) return load();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > Date.now()) {
      // Refresh recency for LRU eviction.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const epoch = this.epoch;
    const generation = this.generations.get(key) ?? 0;
    const value = await load();
    if (storable(value) && epoch === this.epoch && generation === (this.generations.get(key) ?? 0))
      this.put(key, value);
    return value;
  }

  put(key: string, value: V): void {
    if (!this.options.enabled()) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: Date.now() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  invalidate(key: string): void {
    this.entries.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    if (this.generations.size > 100_000) this.clear();
  }

  /** Drops every value that `matches` (a change named by something other than the key); loads in flight are not kept. */
  invalidateWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
    this.epoch++;
  }

  clear(): void {
    this.entries.clear();
    this.generations.clear();
    this.epoch++;
  }
}
