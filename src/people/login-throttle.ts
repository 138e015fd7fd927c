import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { returnAttempt, takeAttempt, throttleSubject, type Attempt } from './attempt-limit';
import { checkCredentials, normalizeEmail, type User } from './users';

/**
 * Password checks are counted per e-mail (guessing one account's password) and per client address
 * (trying many accounts) over a sliding window; past either limit every attempt is refused with the
 * same answer as a wrong password, the right password included, until the window has passed
 * (docs/dashboard.md, "People, log-in and members").
 */
export const LOGIN_THROTTLE = { perEmail: 5, perIp: 20, windowMs: 15 * 60_000 } as const;

/** Takes a log-in attempt for this e-mail from this address, or null when either is at its limit. */
export function takeLoginAttempt(db: Db, clock: Clock, email: string, ip: string): Promise<Attempt | null> {
  return takeAttempt(db, clock, [
    {
      subject: throttleSubject('login-email', normalizeEmail(email)),
      limit: LOGIN_THROTTLE.perEmail,
      windowMs: LOGIN_THROTTLE.windowMs,
    },
    { subject: throttleSubject('login-ip', ip), limit: LOGIN_THROTTLE.perIp, windowMs: LOGIN_THROTTLE.windowMs },
  ]);
}

/**
 * checkCredentials under the throttle: the attempt is counted before the scrypt work, so however
 * many arrive at once, no more than the limit are evaluated. The user, or null for a wrong password,
 * an unknown e-mail and a throttled attempt alike (callers cannot tell them apart, nor can visitors).
 *
 * A right password gives back its own attempt only (a success is no failure, so people who log in
 * often are never throttled); it clears no earlier failure, so whoever knows one password cannot
 * use it to reset the count of guesses made from the same address or at the same account.
 */
export async function checkCredentialsThrottled(
  db: Db,
  clock: Clock,
  input: { email: string; password: string; ip: string },
): Promise<User | null> {
  const attempt = await takeLoginAttempt(db, clock, input.email, input.ip);
  if (!attempt) return null;
  let user: User | null;
  try {
    user = await checkCredentials(db, input.email, input.password);
  } catch (err) {
    await returnAttempt(db, attempt).catch(() => undefined); // a check that could not run is no failure
    throw err;
  }
  if (user) await returnAttempt(db, attempt);
  return user;
}
