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
  const period = periodAt(now);
  const row = await db('accounts as a')
    .where('a.id', accountId)
    .first(
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
  if (!row) throw new Error(`account ${accountId} does not exist`);
  const limit = monthlyQuota(row.tier, row.custom_quota);
  return { accountId, tier: row.tier, limit, used: row.used, remaining: Math.max(0, limit - row.used), period };
}
