import type { Db } from '../db/knex';
import { RETRIEVAL_LIMIT } from './tiers';

/**
 * Admits one retrieval request of a workspace into its sliding 60-second window (100 requests),
 * exactly across API instances: the retrieval_hit() function serializes on the workspace's row. Also
 * answers where the window stands afterwards, in the same round trip.
 */
export async function admitRetrieval(
  db: Db,
  workspaceId: string,
  now: Date,
): Promise<{ allowed: boolean; retryAfterSeconds: number; remaining: number; resetSeconds: number }> {
  const { rows } = await db.raw<{
    rows: Array<{ allowed: boolean; retry_after_ms: string; remaining: number; reset_ms: string }>;
  }>('SELECT allowed, retry_after_ms, remaining, reset_ms FROM retrieval_hit(?, ?, ?, ?::interval)', [
    workspaceId,
    now,
    RETRIEVAL_LIMIT.limit,
    `${RETRIEVAL_LIMIT.windowSeconds} seconds`,
  ]);
  const [result] = rows;
  return {
    allowed: result.allowed,
    retryAfterSeconds: Math.max(1, Math.ceil(Number(result.retry_after_ms) / 1000)),
    // For the RateLimit field: requests left in the window, and seconds until its oldest leaves it.
    remaining: Math.max(0, result.remaining),
    resetSeconds: Math.max(0, Math.ceil(Number(result.reset_ms) / 1000)),
  };
}
