import type { Db } from '../db/knex';
import { loadAudit, type AuditRow } from '../audits/repository';
import type { WebhookRow } from './repository';
import type { EventDetails, FirstAttempt, PlannedDelivery } from '../../workflows/contracts';
import { sendAttempt, type AttemptDeps } from './attempt';
import { attemptRow, withoutReceiverText } from './attempt-log';
import { isRefusedDatum } from '../db/refused-datum';
import { emissionPayloads } from './payload';
import { reportStreaks, updateStreaks, type FailureWatch, type UnwatchedStreak } from './failing-streak';
import { signingSecrets } from './signing';

/**
 * The first attempts of some of an event's deliveries. Delivered ones are logged here, with their
 * attempt, in one transaction, and need nothing more: `logged` is false when that write failed.
 */
export interface SentFirstAttempts {
  attempts: FirstAttempt[];
  logged: boolean;
}

/**
 * Attempt 1 of each planned delivery, all at once, made by the workflow that emits the event (docs/
 * architecture.md, "Webhook delivery"): the audit, the secrets and the payload are loaded once, each
 * delivery is signed and POSTed, and the acknowledged ones are logged together. A delivery whose
 * attempt 1 is already logged is not sent again (this step running again after its workflow task
 * was lost). Only a database error before the POSTs throws; once they have gone out their outcomes
 * are returned, logged or not.
 */
export async function sendFirstAttempts(
  deps: AttemptDeps,
  input: { auditId: string; details: EventDetails; deliveries: PlannedDelivery[]; nextDelayMs: number | null },
): Promise<SentFirstAttempts> {
  const audit = await loadAudit(deps.db, input.auditId);
  // Gone with its workspace: nothing left to deliver.
  if (!audit) return { attempts: [], logged: true };
  const ids = input.deliveries.map((d) => d.deliveryId);
  const [webhooks, alreadyLogged] = await Promise.all([
    enabledWebhooks(
      deps.db,
      input.deliveries.map((d) => d.webhookId),
    ),
    deps.db('delivery_attempts').whereIn('delivery_id', ids).where({ attempt: 1 }).pluck('delivery_id'),
  ]);
  const logged = new Set<string>(alreadyLogged);
  const payloadOf = emissionPayloads(audit);
  const due = input.deliveries.filter((d) => !logged.has(d.deliveryId) && webhooks.has(d.webhookId));
  const now = deps.clock.now();
  const attempts = await Promise.all(
    due.map(async (delivery): Promise<FirstAttempt> => {
      const details = delivery.details ?? input.details;
      const attempt = await sendAttempt(
        deps,
        {
          deliveryId: delivery.deliveryId,
          mode: audit.mode,
          url: delivery.url,
          secrets: signingSecrets(webhooks.get(delivery.webhookId)!, now),
          event: details.event,
          auditId: audit.id,
          payload: payloadOf(details),
        },
        { attempt: 1, trigger: 'automatic', nextDelayMs: input.nextDelayMs },
      );
      return { delivery, attempt };
    }),
  );
  const delivered = attempts.filter((a) => a.attempt.errorClass === null);
  // Only a webhook known to be failing has a streak to end: the acknowledged path writes nothing more.
  const streaksEnded = delivered.some((a) => webhooks.get(a.delivery.webhookId)!.failing_since !== null);
  try {
    await logFirstAttempts(deps.db, { audit, details: input.details, attempts: delivered, payloadOf, streaksEnded });
    return { attempts, logged: true };
  } catch {
    return { attempts, logged: false };
  }
}

/**
 * Logs deliveries with their first attempt, in one transaction: each delivery's row (with the exact
 * bytes every attempt POSTs) and its attempt 1. Idempotent: a row or attempt already there stays.
 * False when the audit no longer exists (nothing to log).
 */
export async function recordFirstAttempts(
  db: Db,
  input: { auditId: string; details: EventDetails; attempts: FirstAttempt[] },
  watch: FailureWatch,
): Promise<boolean> {
  const audit = await loadAudit(db, input.auditId);
  if (!audit) return false;
  const streaks = await logFirstAttempts(db, {
    ...input,
    audit,
    payloadOf: emissionPayloads(audit),
    streaksEnded: true,
  });
  await reportStreaks(db, watch, streaks);
  return true;
}

type LogInput = {
  audit: AuditRow;
  details: EventDetails;
  attempts: FirstAttempt[];
  payloadOf: (details: EventDetails) => string;
  /** Whether an acknowledged attempt may end a webhook's failing streak (else that update is skipped). */
  streaksEnded: boolean;
};

/**
 * All in one transaction; should the database refuse a datum in it, each delivery is logged on its
 * own, so one receiver's answer never keeps another webhook's row out of the log, and a row still
 * refused is logged without the receiver's text.
 */
async function logFirstAttempts(db: Db, input: LogInput): Promise<UnwatchedStreak[]> {
  if (input.attempts.length === 0) return [];
  try {
    return await insertFirstAttempts(db, input);
  } catch (err) {
    if (!isRefusedDatum(err)) throw err;
    const streaks: UnwatchedStreak[] = [];
    for (const one of input.attempts) {
      const logged = await insertFirstAttempts(db, { ...input, attempts: [one] }).catch((refused: unknown) => {
        if (!isRefusedDatum(refused)) throw refused;
        return insertFirstAttempts(db, {
          ...input,
          attempts: [{ delivery: one.delivery, attempt: withoutReceiverText(one.attempt) }],
        });
      });
      streaks.push(...logged);
    }
    return streaks;
  }
}

/** The rows and attempts, and the webhooks' failing streaks, in one transaction. */
async function insertFirstAttempts(db: Db, input: LogInput): Promise<UnwatchedStreak[]> {
  const { audit, details, attempts, payloadOf } = input;
  return db.transaction(async (trx) => {
    await trx('deliveries')
      .insert(
        attempts.map(({ delivery, attempt }) => {
          const event = delivery.details ?? details;
          const delivered = attempt.errorClass === null;
          const startedAt = new Date(attempt.startedAt);
          return {
            id: delivery.deliveryId,
            webhook_id: delivery.webhookId,
            workspace_id: audit.workspace_id,
            mode: audit.mode,
            audit_id: audit.id,
            event: event.event,
            url: delivery.url,
            payload: payloadOf(event),
            created_at: new Date(delivery.createdAt),
            state: delivered ? 'delivered' : 'pending',
            attempts: 1,
            last_attempt_at: startedAt,
            next_attempt_at: attempt.nextAttemptAt ? new Date(attempt.nextAttemptAt) : null,
            delivered_at: delivered ? startedAt : null,
          };
        }),
      )
      .onConflict('id')
      .ignore();
    await trx('delivery_attempts')
      .insert(attempts.map(({ attempt }) => attemptRow(attempt)))
      .onConflict(['delivery_id', 'attempt'])
      .ignore();
    const outcomes = attempts.map(({ delivery, attempt }) => ({
      webhookId: delivery.webhookId,
      at: new Date(attempt.startedAt),
      delivered: attempt.errorClass === null,
    }));
    return updateStreaks(trx, {
      failed: outcomes.filter((o) => !o.delivered),
      delivered: input.streaksEnded ? outcomes.filter((o) => o.delivered) : [],
    });
  });
}

type SigningWebhook = Pick<WebhookRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'failing_since'>;

/** What signs the deliveries of the webhooks still there and enabled among these, and their streaks, by webhook id. */
async function enabledWebhooks(db: Db, webhookIds: string[]): Promise<Map<string, SigningWebhook>> {
  const rows: Array<SigningWebhook & { id: string }> = await db('webhooks')
    .whereIn('id', [...new Set(webhookIds)])
    .whereNull('deleted_at')
    .where({ status: 'enabled' })
    .select('id', 'secret', 'previous_secret', 'previous_secret_expires_at', 'failing_since');
  return new Map(rows.map((r) => [r.id, r]));
}
