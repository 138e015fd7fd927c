import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import { logger } from '../observability/logger';

/**
 * The failing streak of a webhook (docs/architecture.md, "Webhook health"): `webhooks.failing_since`
 * is when its current run of nothing but failed attempts began. The statement that records an
 * attempt keeps it (no statement of its own, so neither outcome costs a round trip more): a failure
 * starts a streak, an acknowledged attempt ends the streak it started after. A streak its
 * WebhookHealthWorkflow has not heard of (`watched_for`) is reported to it through `FailureWatch`.
 */

/** Tells a webhook's health workflow that the webhook is failing (signal-with-start: temporal/webhook-health-control.ts). */
export interface FailureWatch {
  watch(webhookId: string): Promise<void>;
}

/** For callers whose failures nobody watches (unit tests, tools). */
export const UNWATCHED: FailureWatch = { watch: async () => undefined };

/** A streak its health workflow does not know of yet. */
export interface UnwatchedStreak {
  webhookId: string;
  failingSince: Date;
}

/**
 * After one attempt: the delivery's row (attempts, times, delivered) and, in the same statement, the
 * webhook's streak. On a failure it returns the streak when its watch has not been told of it yet.
 */
export async function updateDeliveryAndStreak(
  trx: Knex.Transaction,
  input: { deliveryId: string; attempt: number; startedAt: Date; nextAttemptAt: Date | null; delivered: boolean },
): Promise<UnwatchedStreak | null> {
  const { startedAt } = input;
  const delivery =
    'WITH d AS (UPDATE deliveries SET attempts = greatest(attempts, ?), last_attempt_at = ?, next_attempt_at = ?' +
    (input.delivered ? `, state = 'delivered', delivered_at = ?` : '') +
    ' WHERE id = ? RETURNING webhook_id)';
  const values = [
    input.attempt,
    startedAt,
    input.nextAttemptAt,
    ...(input.delivered ? [startedAt] : []),
    input.deliveryId,
  ];
  if (input.delivered) {
    await trx.raw(
      `${delivery} UPDATE webhooks w SET failing_since = NULL FROM d WHERE w.id = d.webhook_id AND w.failing_since <= ?`,
      [...values, startedAt],
    );
    return null;
  }
  const { rows } = await trx.raw<{ rows: Array<{ id: string; failing_since: Date }> }>(
    `${delivery} UPDATE webhooks w SET failing_since = coalesce(w.failing_since, ?) FROM d
      WHERE w.id = d.webhook_id AND w.status = 'enabled'
        AND (w.failing_since IS NULL OR w.watched_for IS DISTINCT FROM w.failing_since)
      RETURNING w.id, w.failing_since`,
    [...values, startedAt],
  );
  return rows[0] ? { webhookId: rows[0].id, failingSince: new Date(rows[0].failing_since) } : null;
}

/** First attempts logged together: starts the streaks of the failed ones' webhooks, ends those of the acknowledged ones'. */
export async function updateStreaks(
  trx: Knex.Transaction,
  input: { failed: Array<{ webhookId: string; at: Date }>; delivered: Array<{ webhookId: string; at: Date }> },
): Promise<UnwatchedStreak[]> {
  if (input.delivered.length) {
    await trx.raw(
      `UPDATE webhooks w SET failing_since = NULL FROM (VALUES ${input.delivered.map(() => '(?, ?::timestamptz)').join(', ')}) AS v(id, at)
        WHERE w.id = v.id AND w.failing_since <= v.at`,
      input.delivered.flatMap((d) => [d.webhookId, d.at]),
    );
  }
  if (!input.failed.length) return [];
  const { rows } = await trx.raw<{ rows: Array<{ id: string; failing_since: Date }> }>(
    `UPDATE webhooks w SET failing_since = coalesce(w.failing_since, v.at)
       FROM (SELECT id, min(at) AS at FROM (VALUES ${input.failed.map(() => '(?, ?::timestamptz)').join(', ')}) AS f(id, at) GROUP BY id) AS v
      WHERE w.id = v.id AND w.status = 'enabled'
        AND (w.failing_since IS NULL OR w.watched_for IS DISTINCT FROM w.failing_since)
      RETURNING w.id, w.failing_since`,
    input.failed.flatMap((f) => [f.webhookId, f.at]),
  );
  return rows.map((row) => ({ webhookId: row.id, failingSince: new Date(row.failing_since) }));
}

/**
 * Reports each new streak to its watch, then notes it as reported. A watch that cannot be reached now
 * is not fatal: the attempt is recorded, and the streak stays unreported, so the next failed attempt
 * of the webhook (there are five retries) reports it again.
 */
export async function reportStreaks(db: Db, watch: FailureWatch, streaks: UnwatchedStreak[]): Promise<void> {
  for (const streak of streaks) {
    try {
      await watch.watch(streak.webhookId);
      await db('webhooks')
        .where({ id: streak.webhookId, failing_since: streak.failingSince })
        .update({ watched_for: streak.failingSince });
    } catch (err) {
      logger.warn(
        { err, webhookId: streak.webhookId },
        'a failing webhook could not be reported to its health workflow',
      );
    }
  }
}
