import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import { publishChange } from '../db/change-feed';

/**
 * The outbox of workflow starts (table pending_audit_starts). Its times are the database's own
 * clock: they measure infrastructure delays, not the business time audits are stamped with.
 */
export interface PendingStart {
  auditId: string;
  /** Which trigger's start this is (a re-triggered test audit gets a new one). */
  token: string;
}

/**
 * Claim of whoever is starting a workflow (a trigger right after its commit, or a reconciler):
 * longer than a start's deadline, so a live claimant is never overtaken; after a crash the
 * reconciler takes over once it lapses.
 */
const START_CLAIM_MS = 15_000;

/** In the trigger's transaction: the audit's workflow start is owed, claimed by this trigger. */
export async function recordPendingStart(trx: Knex.Transaction, auditId: string): Promise<PendingStart> {
  const token = randomUUID();
  await trx.raw(
    `INSERT INTO pending_audit_starts (audit_id, token, requested_at, claimed_until)
     VALUES (?, ?, now(), now() + ? * interval '1 millisecond')
     ON CONFLICT (audit_id) DO UPDATE
       SET token = EXCLUDED.token, requested_at = EXCLUDED.requested_at, claimed_until = EXCLUDED.claimed_until`,
    [auditId, token, START_CLAIM_MS],
  );
  return { auditId, token };
}

/**
 * Owes the audit's start again, unclaimed, for the reconciler, unless a start is owed already: a
 * start that replaced a run of a later trigger and could not be corrected (src/audits/workflow-start.ts).
 */
export async function oweStartAgain(db: Db, auditId: string): Promise<void> {
  await db.raw(
    `INSERT INTO pending_audit_starts (audit_id, token, requested_at, claimed_until)
     VALUES (?, ?, now(), NULL) ON CONFLICT (audit_id) DO NOTHING`,
    [auditId, randomUUID()],
  );
}

/** The workflow runs: nothing is owed any more. */
export async function confirmStarted(db: Db, start: PendingStart): Promise<void> {
  await db('pending_audit_starts').where({ audit_id: start.auditId, token: start.token }).delete();
}

/** The start could not be made now: leave it to the next reconciler pass. */
export async function releaseClaim(db: Db, start: PendingStart): Promise<void> {
  await db('pending_audit_starts')
    .where({ audit_id: start.auditId, token: start.token })
    .update({ claimed_until: null });
}

export interface DueStart extends PendingStart {
  /** Owed for longer than the give-up age. */
  overdue: boolean;
}

/**
 * Claims starts nobody is working on, oldest first; with `overdueOnly`, only those owed for longer
 * than `giveUpMs`. SKIP LOCKED and the claim keep reconcilers of several API instances apart; the
 * claim is committed at once, so no lock is held while the caller talks to Temporal.
 */
export async function claimDueStarts(
  db: Db,
  input: { limit: number; giveUpMs: number; overdueOnly: boolean },
): Promise<DueStart[]> {
  const result = await db.raw(
    `UPDATE pending_audit_starts p SET claimed_until = now() + ? * interval '1 millisecond'
       FROM (SELECT audit_id FROM pending_audit_starts
              WHERE (claimed_until IS NULL OR claimed_until < now())
                AND (NOT ? OR requested_at < now() - ? * interval '1 millisecond')
              ORDER BY requested_at LIMIT ? FOR UPDATE SKIP LOCKED) due
      WHERE p.audit_id = due.audit_id
      RETURNING p.audit_id, p.token, p.requested_at < now() - ? * interval '1 millisecond' AS overdue`,
    [START_CLAIM_MS, input.overdueOnly, input.giveUpMs, input.limit, input.giveUpMs],
  );
  return (result.rows as Array<{ audit_id: string; token: string; overdue: boolean }>).map((r) => ({
    auditId: r.audit_id,
    token: r.token,
    overdue: r.overdue,
  }));
}

/**
 * Gives up on a start that can never be made: the audit fails with audit_provider_unavailable,
 * is not charged and (never having run) does not use up its site's free audit. False when the
 * start was confirmed or re-requested meanwhile. The audit row is locked first, as triggers do.
 */
export async function refundUnstarted(db: Db, start: PendingStart, reason: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const audit = await trx('audits').where({ id: start.auditId }).forUpdate().first('account_id');
    const owed = await trx('pending_audit_starts').where({ audit_id: start.auditId, token: start.token }).delete();
    if (!audit || owed === 0) return false;
    await trx('audits')
      .where({ id: start.auditId })
      .update({
        status: 'failed',
        charged: false,
        attempts: 0,
        error_code: 'audit_provider_unavailable',
        error_message: `the audit could not be started (${reason}); it was not charged, trigger it again`,
        failed_at: trx.fn.now(),
        updated_at: trx.fn.now(),
      });
    await publishChange(trx, { kind: 'audit', id: start.auditId });
    await publishChange(trx, { kind: 'account', id: audit.account_id });
    return true;
  });
}
