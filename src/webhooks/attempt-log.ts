import type { Db } from '../db/knex';
import { isRefusedDatum } from '../db/refused-datum';
import { storableText } from '../text/storable';
import type { AttemptRecord } from '../../workflows/contracts';
import { reportStreaks, updateDeliveryAndStreak, type FailureWatch, type UnwatchedStreak } from './failing-streak';

/**
 * Stores an attempt's outcome in the delivery log (idempotent: the same attempt again overwrites
 * itself), with the webhook's failing streak in the same statement; a streak that began with it is
 * then reported to `watch`. Should the database still refuse what the receiver answered, the attempt
 * is stored without it: the outcome counts, the excerpt does not.
 */
export async function recordAttempt(db: Db, record: AttemptRecord, watch: FailureWatch): Promise<void> {
  let streak: UnwatchedStreak | null;
  try {
    streak = await storeAttempt(db, record);
  } catch (err) {
    if (!isRefusedDatum(err)) throw err;
    streak = await storeAttempt(db, withoutReceiverText(record));
  }
  if (streak) await reportStreaks(db, watch, [streak]);
}

async function storeAttempt(db: Db, record: AttemptRecord): Promise<UnwatchedStreak | null> {
  return db.transaction(async (trx) => {
    await trx('delivery_attempts').insert(attemptRow(record)).onConflict(['delivery_id', 'attempt']).merge();
    return updateDeliveryAndStreak(trx, {
      deliveryId: record.deliveryId,
      attempt: record.attempt,
      startedAt: new Date(record.startedAt),
      nextAttemptAt: record.nextAttemptAt ? new Date(record.nextAttemptAt) : null,
      delivered: record.errorClass === null,
    });
  });
}

/** The attempt with nothing of the receiver's own text: what is stored when the database refuses that text. */
export function withoutReceiverText(record: AttemptRecord): AttemptRecord {
  return {
    ...record,
    excerpt: record.excerpt === null ? null : UNSTORED_EXCERPT,
    errorMessage: record.errorMessage === null ? null : record.errorClass,
  };
}

const UNSTORED_EXCERPT = '[the response body could not be stored]';

/** An attempt as the delivery log's row of it; outside text made storable (docs/decisions.md, "Bytes from outside"). */
export function attemptRow(record: AttemptRecord) {
  return {
    delivery_id: record.deliveryId,
    attempt: record.attempt,
    trigger: record.trigger,
    started_at: new Date(record.startedAt),
    duration_ms: record.durationMs,
    status_code: record.statusCode,
    error_class: record.errorClass,
    error_message: record.errorMessage === null ? null : storableText(record.errorMessage),
    response_excerpt: record.excerpt === null ? null : storableText(record.excerpt),
    next_attempt_at: record.nextAttemptAt ? new Date(record.nextAttemptAt) : null,
  };
}

/** After the automatic schedule: failed unless some attempt succeeded. */
export async function markDeliveryFailed(db: Db, deliveryId: string): Promise<void> {
  await db('deliveries').where({ id: deliveryId, state: 'pending' }).update({ state: 'failed', next_attempt_at: null });
}
