import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { takeAttempt, throttleSubject, type Attempt } from './attempt-limit';

/**
 * Sign-up is throttled per client address (docs/decisions.md): an answer to a sign-up may say that
 * an e-mail already has an account, so every attempt that reaches that question is counted,
 * successful ones included (they create accounts). `perIp` is the shipped SIGNUP_LIMIT.
 */
export const SIGNUP_THROTTLE = { perIp: 10, windowMs: 3600_000 } as const;

/** Takes a sign-up attempt for this address, or null when it has had `limit` within the hour. */
export function takeSignUpAttempt(db: Db, clock: Clock, ip: string, limit: number): Promise<Attempt | null> {
  return takeAttempt(db, clock, [
    { subject: throttleSubject('signup-ip', ip), limit, windowMs: SIGNUP_THROTTLE.windowMs },
  ]);
}
