import type { Db } from '../db/knex';
import { publishChange } from '../db/change-feed';

/** Audits of accounts on the free tier are kept 24 months (SPEC Limits 10). */
export const FREE_RETENTION_MONTHS = 24;

export function freeRetentionCutoff(now: Date): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - FREE_RETENTION_MONTHS);
  return cutoff;
}

/**
 * Deletes what has outlived its retention: free-tier audits older than 24 months and Idempotency-Key
 * records older than 24 hours. Batched, so a large backlog does not hold one long transaction.
 */
export async function pruneExpired(db: Db, now: Date, batchSize = 1000): Promise<{ audits: number; idempotencyKeys: number }> {
  const cutoff = freeRetentionCutoff(now);
  let audits = 0;
  for (;;) {
    const deleted = await db.transaction(async (trx) => {
      const ids = await trx('audits as u')
        .join('accounts as a', 'a.id', 'u.account_id')
        .where('a.tier', 'free')
        .where('u.created_at', '<', cutoff)
        .limit(batchSize)
        .pluck('u.id');
      if (ids.length === 0) return 0;
      await trx('audits').whereIn('id', ids).delete();
      for (const id of ids) await publishChange(trx, { kind: 'audit', id });
      return ids.length;
    });
    audits += deleted;
    if (deleted < batchSize) break;
  }
  const idempotencyKeys = await db('idempotency_keys').where('created_at', '<', new Date(now.getTime() - 24 * 3600_000)).delete();
  return { audits, idempotencyKeys };
}
