import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../db/knex';

/**
 * The outbox of Temporal Schedule changes (table pending_site_schedules), the idea of
 * src/audits/pending-starts.ts applied to sites: whatever changes a site (API, dashboard, the
 * admin CLI's downgrade) records in the same transaction that its schedule is owed; whoever made
 * the change applies it after the commit, and what a crash, a Temporal outage or a process
 * without a Temporal client (the admin CLI) left owed is applied by the API's reconciler.
 */
export interface OwedSchedule {
  siteId: string;
  token: string;
}

/** Longer than a schedule call's deadline: a live claimant is never overtaken. */
const CLAIM_MS = 15_000;

/** In the transaction that changes the site: its schedule is owed, claimed by the caller when `claim`. */
export async function recordOwedSchedule(
  trx: Knex.Transaction,
  siteId: string,
  opts: { claim: boolean } = { claim: true },
): Promise<OwedSchedule> {
  const token = randomUUID();
  await trx.raw(
    `INSERT INTO pending_site_schedules (site_id, token, requested_at, claimed_until)
     VALUES (?, ?, now(), CASE WHEN ? THEN now() + ? * interval '1 millisecond' END)
     ON CONFLICT (site_id) DO UPDATE
       SET token = EXCLUDED.token, requested_at = EXCLUDED.requested_at, claimed_until = EXCLUDED.claimed_until`,
    [siteId, token, opts.claim, CLAIM_MS],
  );
  return { siteId, token };
}

/** The schedule matches the site: nothing is owed unless a later change asked again. */
export async function confirmSchedule(db: Db, owed: OwedSchedule): Promise<void> {
  await db('pending_site_schedules').where({ site_id: owed.siteId, token: owed.token }).delete();
}

/** Could not be applied now: the next reconciler pass tries again. */
export async function releaseScheduleClaim(db: Db, owed: OwedSchedule): Promise<void> {
  await db('pending_site_schedules').where({ site_id: owed.siteId, token: owed.token }).update({ claimed_until: null });
}

/** Claims owed schedules nobody works on, oldest first; SKIP LOCKED keeps API instances apart. */
export async function claimOwedSchedules(db: Db, limit: number): Promise<OwedSchedule[]> {
  const result = await db.raw(
    `UPDATE pending_site_schedules p SET claimed_until = now() + ? * interval '1 millisecond'
       FROM (SELECT site_id FROM pending_site_schedules
              WHERE claimed_until IS NULL OR claimed_until < now()
              ORDER BY requested_at LIMIT ? FOR UPDATE SKIP LOCKED) due
      WHERE p.site_id = due.site_id
      RETURNING p.site_id, p.token`,
    [CLAIM_MS, limit],
  );
  return (result.rows as Array<{ site_id: string; token: string }>).map((r) => ({ siteId: r.site_id, token: r.token }));
}
