import type { Db } from '../db/knex';
import type { Clock } from '../clock';
import { hashApiKey, parseApiKey } from './keys';
import { findKeyByHash, type KeyIdentity } from './repository';

export interface AuthenticatorOptions {
  cacheTtlMs: number;
  lastUsedFlushMs: number;
  /** Valid identities kept in memory (there are only as many as keys in use). */
  maxKnownKeys: number;
  /** Unknown keys remembered as such; the oldest are forgotten first. */
  maxUnknownKeys: number;
}

/** How long a key seen valid is still let through an address's failed-authentication limit. */
const VOUCH_TTL_MS = 24 * 3600_000;

const DEFAULT_OPTIONS: AuthenticatorOptions = {
  cacheTtlMs: 10_000,
  lastUsedFlushMs: 15_000,
  maxKnownKeys: 50_000,
  maxUnknownKeys: 10_000,
};

/**
 * Resolves API keys to identities with a short cache, so a GET does not pay a key lookup each time.
 * The cache TTL bounds how long a revoked key keeps working on any instance (spec: within 30 s).
 * Unknown keys go to a separate, smaller cache: a flood of made-up keys costs one lookup per key
 * and can only push out other unknown keys, never a valid identity. Keys seen valid are remembered
 * (as hashes) for a day after their last use, for the failed-authentication limit (vouchesFor).
 * last_used_at is collected in memory and written in batches, not on every request.
 */
export class KeyAuthenticator {
  private readonly known: BoundedCache<KeyIdentity>;
  private readonly unknown: BoundedCache<true>;
  /** Hashes of keys seen valid within VOUCH_TTL_MS (see vouchesFor); kept through forgetAll. */
  private readonly vouched: BoundedCache<true>;
  private readonly lastUsed = new Map<string, Date>();
  private flushTimer: NodeJS.Timeout | null = null;

  private readonly options: AuthenticatorOptions;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    options: Partial<AuthenticatorOptions> = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    this.known = new BoundedCache(this.options.maxKnownKeys, this.options.cacheTtlMs);
    this.unknown = new BoundedCache(this.options.maxUnknownKeys, this.options.cacheTtlMs);
    this.vouched = new BoundedCache(this.options.maxKnownKeys, VOUCH_TTL_MS);
  }

  /** The identity of a valid, unrevoked key, or null. */
  async authenticate(key: string): Promise<KeyIdentity | null> {
    const identity = await this.resolve(key);
    if (!identity) return null;
    this.lastUsed.set(identity.keyId, this.clock.now());
    this.scheduleFlush();
    return identity;
  }

  /**
   * Whether this instance saw the key valid within the last day: such a key is no guess, so the
   * failed-authentication limit lets it be evaluated (looked up again, revocation included) even
   * for an address that is over its limit. Answered from memory; a made-up key is never vouched for.
   */
  vouchesFor(key: string): boolean {
    if (!parseApiKey(key)) return false;
    const hash = hashApiKey(key);
    const nowMs = Date.now();
    return this.known.get(hash, nowMs) !== undefined || this.vouched.get(hash, nowMs) === true;
  }

  private async resolve(key: string): Promise<KeyIdentity | null> {
    if (!parseApiKey(key)) return null;
    const hash = hashApiKey(key);
    const nowMs = Date.now();
    let identity: KeyIdentity | null | undefined = this.known.get(hash, nowMs);
    if (identity === undefined) {
      if (this.unknown.get(hash, nowMs)) return null;
      identity = await findKeyByHash(this.db, hash);
      if (identity) this.known.set(hash, identity, nowMs);
      else this.unknown.set(hash, true, nowMs);
    }
    const valid = identity && !identity.revoked ? identity : null;
    if (valid) this.vouched.set(hash, true, nowMs);
    else this.vouched.delete(hash);
    return valid;
  }

  /** Drops cached identities (a key was created or revoked somewhere): next use reads the database. */
  forgetAll(): void {
    this.known.clear();
    this.unknown.clear();
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush().catch(() => undefined);
    }, this.options.lastUsedFlushMs);
    this.flushTimer.unref();
  }

  /** Writes the collected last-used times in one statement. */
  async flush(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = [...this.lastUsed.entries()];
    this.lastUsed.clear();
    await this.db.raw(
      `UPDATE api_keys AS k SET last_used_at = greatest(k.last_used_at, v.used_at)
         FROM (SELECT unnest(?::text[]) AS id, unnest(?::timestamptz[]) AS used_at) AS v
        WHERE k.id = v.id`,
      [batch.map(([id]) => id), batch.map(([, at]) => at)],
    );
  }

  async close(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.flush();
  }
}

/** Entries expire after ttlMs; when full, the oldest entry makes room (Map keeps insertion order). */
class BoundedCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  get(key: string, nowMs: number): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > nowMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: T, nowMs: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: nowMs + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
