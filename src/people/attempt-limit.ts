import { createHash } from 'node:crypto';
import type { Clock } from '../clock';
import type { Db } from '../db/knex';

/** One counter of a throttle: at most `limit` attempts per `subject` within `windowMs`. */
export interface AttemptRule {
  subject: string;
  limit: number;
  windowMs: number;
}

/**
 * The subject of a counter: what is counted (e.g. 'login-email') and a digest of whose it is, so an
 * e-mail of any length or an address a proxy passed on fits the column and its index, and the table
 * holds no addresses in clear.
 */
export function throttleSubject(kind: string, value: string): string {
  return `${kind}:${createHash('sha256').update(value).digest('base64url')}`;
}

/** An attempt that was let through: the rows it holds, to be given back when it should not count. */
export interface Attempt {
  ids: string[];
}

/**
 * Takes one attempt under every rule, or none when any rule's subject is at its limit: the count and
 * the insert happen in one transaction holding an advisory lock per subject, so concurrent requests,
 * from any number of processes, are let through one at a time and never more than the limit. Called
 * before the costly work it guards (a scrypt check), so refused attempts cost nothing.
 */
export async function takeAttempt(db: Db, clock: Clock, rules: AttemptRule[]): Promise<Attempt | null> {
  const now = clock.now();
  // Locks are always taken in the same order, so two requests sharing subjects cannot deadlock.
  const ordered = [...rules].sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
  const attempt = await db.transaction(async (trx) => {
    for (const rule of ordered)
      await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`throttle:${rule.subject}`]);
    const rows: Array<{ subject: string; used: number }> = await trx('throttle_attempts')
      .whereIn(
        'subject',
        ordered.map((r) => r.subject),
      )
      .where('expires_at', '>', now)
      .groupBy('subject')
      .select('subject', trx.raw('count(*)::int as used'));
    const used = (subject: string) => rows.find((r) => r.subject === subject)?.used ?? 0;
    if (ordered.some((rule) => used(rule.subject) >= rule.limit)) return null;
    const inserted: Array<{ id: string | number }> = await trx('throttle_attempts')
      .insert(ordered.map((r) => ({ subject: r.subject, expires_at: new Date(now.getTime() + r.windowMs) })))
      .returning('id');
    return { ids: inserted.map((row) => String(row.id)) };
  });
  // Rows whose window has ended serve no count any more.
  await db('throttle_attempts').where('expires_at', '<=', now).delete();
  return attempt;
}

/** Gives an attempt back: it no longer counts against any of its subjects. */
export async function returnAttempt(db: Db, attempt: Attempt): Promise<void> {
  await db('throttle_attempts').whereIn('id', attempt.ids).delete();
}

/**
 * When `subject` has an attempt free again: the end of the window of its oldest counted attempt (now
 * when none counts). For a Retry-After that tells the truth; right once the subject is at its limit.
 */
export async function nextAttemptAt(db: Db, clock: Clock, subject: string): Promise<Date> {
  const now = clock.now();
  const row = await db('throttle_attempts')
    .where({ subject })
    .where('expires_at', '>', now)
    .min({ at: 'expires_at' })
    .first();
  const at = row?.at as Date | string | null | undefined;
  return at ? new Date(at) : now;
}
