import type { Db } from '../db/knex';
import type { Clock } from '../clock';
import { hashApiKey, parseApiKey } from './keys';
import { findKeyByHash, type KeyIdentity } from './repository';

/**
 * Resolves API keys to identities with a short cache, so a GET does not pay a key lookup each time.
 * The cache TTL bounds how long a revoked key keeps working on any instance (spec: within 30 s).
 * last_used_at is collected in memory and written in batches, not on every request.
 */
export class KeyAuthenticator {
  private readonly cache = new Map<string, { identity: KeyIdentity | null; expiresAt: number }>();
  private readonly lastUsed = new Map<string, Date>();
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly options: { cacheTtlMs: number; lastUsedFlushMs: number } = { cacheTtlMs: 10_000, lastUsedFlushMs: 15_000 },
  ) {}

  /** The identity of a valid, unrevoked key, or null. */
  async authenticate(key: string): Promise<KeyIdentity | null> {
    if (!parseApiKey(key)) return null;
    const hash = hashApiKey(key);
    const nowMs = Date.now();
    let entry = this.cache.get(hash);
    if (!entry || entry.expiresAt <= nowMs) {
      entry = { identity: await findKeyByHash(this.db, hash), expiresAt: nowMs + this.options.cacheTtlMs };
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(hash, entry);
    }
    const identity = entry.identity;
    if (!identity || identity.revoked) return null;
    this.lastUsed.set(identity.keyId, this.clock.now());
    this.scheduleFlush();
    return identity;
  }

  /** Drops cached identities (a key was created or revoked somewhere): next use reads the database. */
  forgetAll(): void {
    this.cache.clear();
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
