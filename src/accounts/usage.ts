import type { Knex } from 'knex';
import type { Tier } from '../schemas/audit';
import { periodAt, type Period } from './period';
import { monthlyQuota } from './tiers';

export interface Usage {
  accountId: string;
  tier: Tier;
  limit: number;
  used: number;
  remaining: number;
  period: Period;
}

/**
 * The account's quota position at `now`: charged live audits since the period start (or since the
 * last upgrade, which resets the count). Pass a transaction to read under its locks.
 */
export async function accountUsage(db: Knex | Knex.Transaction, accountId: string, now: Date): Promise<Usage> {
  const row = await usageQuery(db, accountId, now).first();
  if (!row) throw new Error(`account ${accountId} does not exist`);
  return toUsage(accountId, row, now);
}

/**
 * Locks the account row, then reads everything a live trigger decides on in one statement: the
 * quota position, whether the account audited this site before (the first audit of a site, keyed
 * by src/registrable-domain.ts, is free) and the times
 * of its live triggers inside the burst window. Two statements on purpose: under READ COMMITTED a
 * statement that waits for a row lock keeps the snapshot it started with, so counts read in the
 * locking statement could miss what the previous lock holder committed.
 */
export async function lockAccountPosition(
  trx: Knex.Transaction,
  input: { accountId: string; now: Date; siteKey: string; burstWindowStart: Date },
): Promise<{ usage: Usage; siteSeen: boolean; recentTriggers: Date[] }> {
  await trx('accounts').where({ id: input.accountId }).forUpdate().first('id');
  const row = await usageQuery(trx, input.accountId, input.now)
    .select(
      // A failed audit without a single attempt never started (the reconciler refunded it): it
      // did not use up the site's free audit.
      trx.raw(
        `EXISTS (SELECT 1 FROM audits d WHERE d.account_id = a.id AND d.mode = 'live' AND d.site_key = ?
           AND NOT (d.status = 'failed' AND d.attempts = 0)) AS site_seen`,
        [input.siteKey],
      ),
      trx.raw(
        `ARRAY(SELECT b.created_at FROM audits b WHERE b.account_id = a.id AND b.mode = 'live' AND b.created_at > ? ORDER BY b.created_at) AS recent`,
        [input.burstWindowStart],
      ),
    )
    .first();
  if (!row) throw new Error(`account ${input.accountId} does not exist`);
  return {
    usage: toUsage(input.accountId, row, input.now),
    siteSeen: row.site_seen,
    recentTriggers: (row.recent as Date[]).map((d) => new Date(d)),
  };
}

function usageQuery(db: Knex | Knex.Transaction, accountId: string, now: Date) {
  const period = periodAt(now);
  return db('accounts as a')
    .where('a.id', accountId)
    .select(
      'a.tier',
      'a.custom_quota',
      db.raw(
        `(SELECT count(*)::int FROM audits u
           WHERE u.account_id = a.id AND u.mode = 'live' AND u.charged
             AND u.created_at >= greatest(?::timestamptz, coalesce(a.usage_reset_at, ?::timestamptz))
             AND u.created_at < ?::timestamptz) AS used`,
        [period.start, period.start, period.end],
      ),
    );
}

function toUsage(accountId: string, row: { tier: Tier; custom_quota: number | null; used: number }, now: Date): Usage {
  const limit = monthlyQuota(row.tier, row.custom_quota);
  return {
    accountId,
    tier: row.tier,
    limit,
    used: row.used,
    remaining: Math.max(0, limit - row.used),
    period: periodAt(now),
  };
}
