import { randomBytes } from 'node:crypto';
import type { Db } from '../db/knex';
import { publishChange, type ChangeFeed } from '../db/change-feed';
import { randomBase62 } from '../ids';
import { REPORT_LINK_TTL_MS, type SigningKey } from './report-link';

interface KeyRow {
  id: string;
  secret: Buffer;
  created_at: Date;
  retired_at: Date | null;
}

const newSigningKeyId = (): string => `rsk_${randomBase62(16)}`;

/** The newest unretired key, created on first use. */
export async function activeSigningKey(db: Db, now: Date): Promise<SigningKey> {
  const row = await db<KeyRow>('report_signing_keys')
    .whereNull('retired_at')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .first();
  if (row) return { id: row.id, secret: row.secret };
  // Two instances creating the first key at once both succeed; the newer one signs from then on
  // and both verify, which is all that matters.
  const created = { id: newSigningKeyId(), secret: randomBytes(32), created_at: now };
  await db('report_signing_keys').insert(created);
  return { id: created.id, secret: created.secret };
}

export async function findSigningKey(db: Db, id: string): Promise<SigningKey | undefined> {
  const row = await db<KeyRow>('report_signing_keys').where({ id }).first();
  return row ? { id: row.id, secret: row.secret } : undefined;
}

/**
 * Starts signing with a new key. Retired keys keep verifying the links they signed until those
 * expire; with `revokePrevious` (a leaked key) they are deleted and their links stop working now.
 */
export async function rotateSigningKey(db: Db, now: Date, opts: { revokePrevious?: boolean } = {}) {
  return db.transaction(async (trx) => {
    const previous: string[] = await trx('report_signing_keys').whereNull('retired_at').pluck('id');
    const revoked: string[] = opts.revokePrevious ? await trx('report_signing_keys').pluck('id') : [];
    if (opts.revokePrevious) await trx('report_signing_keys').delete();
    else await trx('report_signing_keys').whereNull('retired_at').update({ retired_at: now });
    const key = { id: newSigningKeyId(), secret: randomBytes(32), created_at: now };
    await trx('report_signing_keys').insert(key);
    await publishChange(trx, { kind: 'signing_key', id: key.id });
    return {
      key_id: key.id,
      created_at: now.toISOString(),
      retired: opts.revokePrevious ? [] : previous,
      revoked,
    };
  });
}

export async function listSigningKeys(db: Db) {
  const rows = await db<KeyRow>('report_signing_keys')
    .orderBy('created_at', 'desc')
    .select('id', 'created_at', 'retired_at');
  return rows.map((r) => ({
    key_id: r.id,
    created_at: r.created_at.toISOString(),
    retired_at: r.retired_at?.toISOString() ?? null,
  }));
}

/** Keys retired longer ago than a link lives can no longer verify anything valid. */
export async function pruneRetiredSigningKeys(db: Db, now: Date): Promise<number> {
  return db('report_signing_keys')
    .where('retired_at', '<', new Date(now.getTime() - REPORT_LINK_TTL_MS))
    .delete();
}

/**
 * The API's view of the signing keys, cached: links are signed and checked without a database
 * round trip. A rotation (in any process) is announced on the change feed and drops the cache.
 */
export class SigningKeyring {
  private active: Promise<SigningKey> | null = null;
  private readonly known = new Map<string, SigningKey | undefined>();

  constructor(
    private readonly db: Db,
    feed?: ChangeFeed,
  ) {
    feed?.subscribe((change) => {
      if (change === 'reset' || change.kind === 'signing_key') this.forget();
    });
  }

  forget(): void {
    this.active = null;
    this.known.clear();
  }

  signingKey(now: Date): Promise<SigningKey> {
    this.active ??= activeSigningKey(this.db, now).catch((err) => {
      this.active = null;
      throw err;
    });
    return this.active;
  }

  async find(id: string): Promise<SigningKey | undefined> {
    if (this.known.has(id)) return this.known.get(id);
    const key = await findSigningKey(this.db, id);
    // Unknown ids are not cached: anyone can make them up, and the map must not grow with them.
    if (key) this.known.set(id, key);
    return key;
  }
}
