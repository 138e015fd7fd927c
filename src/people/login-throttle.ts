import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { normalizeEmail } from './users';

/**
 * Failed log-ins are counted per e-mail (guessing one account's password) and per client address
 * (trying many accounts) over a sliding window; past either limit every attempt is refused with the
 * same message as a wrong password, the right password included, until the window has passed.
 */
export const LOGIN_THROTTLE = { perEmail: 5, perIp: 20, windowMs: 15 * 60_000 } as const;

const subjects = (email: string, ip: string) => ({ email: `email:${normalizeEmail(email)}`, ip: `ip:${ip}` });

export async function loginThrottled(db: Db, clock: Clock, email: string, ip: string): Promise<boolean> {
  const since = new Date(clock.now().getTime() - LOGIN_THROTTLE.windowMs);
  const s = subjects(email, ip);
  const rows = await db('login_failures')
    .whereIn('subject', [s.email, s.ip])
    .where('failed_at', '>', since)
    .groupBy('subject')
    .select('subject', db.raw('count(*)::int as failures'));
  const failures = (subject: string) => rows.find((r) => r.subject === subject)?.failures ?? 0;
  return failures(s.email) >= LOGIN_THROTTLE.perEmail || failures(s.ip) >= LOGIN_THROTTLE.perIp;
}

export async function recordLoginFailure(db: Db, clock: Clock, email: string, ip: string): Promise<void> {
  const now = clock.now();
  const s = subjects(email, ip);
  await db('login_failures').insert([
    { subject: s.email, failed_at: now },
    { subject: s.ip, failed_at: now },
  ]);
  // Old rows serve no window any more.
  await db('login_failures')
    .where('failed_at', '<', new Date(now.getTime() - 2 * LOGIN_THROTTLE.windowMs))
    .delete();
}
