import type { Db } from '../db/knex';
import { publishChange } from '../db/change-feed';
import { pruneRetiredSigningKeys } from '../reports/signing-keys';
import type { ReportStorage } from '../reports/storage';
import { reportKeysOf } from '../reports/stored-reports';
import { dropCrawlRunsBefore } from '../crawl/durable/run-store';

/** A crawl's working state this old belongs to an attempt that can no longer finish (its workflow was terminated). */
const ABANDONED_CRAWL_MS = 3 * 24 * 3600_000;

/** Share links that ended (expired or revoked) this long ago open nothing and leave their audit's list (docs/decisions.md, "Share links"). */
const ENDED_SHARE_MS = 30 * 24 * 3600_000;

/** Audits of accounts on the free tier are kept 24 months (README "Tiers and limits"). */
export const FREE_RETENTION_MONTHS = 24;

export function freeRetentionCutoff(now: Date): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - FREE_RETENTION_MONTHS);
  return cutoff;
}

/**
 * Deletes what has outlived its retention: free-tier audits older than 24 months (with their report
 * files), Idempotency-Key records older than 24 hours and report signing keys retired longer ago
 * than a link lives, the working state of crawls abandoned over 3 days ago, and share links that ended
 * over 30 days ago. Batched, so a large backlog does not hold one long transaction.
 */
export async function pruneExpired(db: Db, storage: ReportStorage, now: Date, batchSize = 1000) {
  const cutoff = freeRetentionCutoff(now);
  let audits = 0;
  let reportFiles = 0;
  for (;;) {
    const deleted = await db.transaction(async (trx) => {
      const ids = await trx('audits as u')
        .join('accounts as a', 'a.id', 'u.account_id')
        .where('a.tier', 'free')
        .where('u.created_at', '<', cutoff)
        .limit(batchSize)
        .pluck('u.id');
      if (ids.length === 0) return { count: 0, files: [] };
      const files = await reportKeysOf(trx, ids);
      await trx('audits').whereIn('id', ids).delete();
      for (const id of ids) await publishChange(trx, { kind: 'audit', id });
      return { count: ids.length, files };
    });
    // After the commit: a file is never gone while its row is still served.
    for (const file of deleted.files) await storage.delete(file);
    audits += deleted.count;
    reportFiles += deleted.files.length;
    if (deleted.count < batchSize) break;
  }
  const idempotencyKeys = await db('idempotency_keys')
    .where('created_at', '<', new Date(now.getTime() - 24 * 3600_000))
    .delete();
  const signingKeys = await pruneRetiredSigningKeys(db, now);
  const abandonedCrawls = await dropCrawlRunsBefore(db, new Date(now.getTime() - ABANDONED_CRAWL_MS));
  const endedBefore = new Date(now.getTime() - ENDED_SHARE_MS);
  const shareLinks = await db('audit_shares')
    .where('expires_at', '<', endedBefore)
    .orWhere('revoked_at', '<', endedBefore)
    .delete();
  return { audits, reportFiles, idempotencyKeys, signingKeys, abandonedCrawls, shareLinks };
}
