import type { Db } from '../db/knex';
import { BURST_LIMIT } from './tiers';

/**
 * Where an account stands in its burst window after a live trigger (for the RateLimit field,
 * docs/decisions.md "Rate-limit fields"): triggers left in the sliding 60 s, and seconds until the
 * oldest one in it leaves (the window's full length when none is in it).
 */
export async function burstPosition(
  db: Db,
  accountId: string,
  now: Date,
): Promise<{ remaining: number; resetSeconds: number }> {
  const windowMs = BURST_LIMIT.windowSeconds * 1000;
  const row: { count: number; oldest: Date | null } | undefined = await db('audits')
    .where({ account_id: accountId, mode: 'live' })
    .where('created_at', '>', new Date(now.getTime() - windowMs))
    .first(db.raw('count(*)::int AS count'), db.raw('min(created_at) AS oldest'));
  const count = row?.count ?? 0;
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : now.getTime();
  return {
    remaining: Math.max(0, BURST_LIMIT.limit - count),
    resetSeconds: Math.max(0, Math.ceil((oldest + windowMs - now.getTime()) / 1000)),
  };
}
