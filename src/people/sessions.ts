import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock';
import type { Db } from '../db/knex';

/** A session ends after 12 h without a request, and 7 days after log-in whatever happens. */
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;
/** last_seen_at is written at most this often: a page view need not be a database write. */
const TOUCH_EVERY_MS = 60_000;

export interface Session {
  tokenHash: string;
  userId: string;
  email: string;
  workspaceId: string;
  csrfToken: string;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** Starts a session; returns the token for the cookie (only its hash is stored). */
export async function startSession(db: Db, clock: Clock, input: { userId: string; workspaceId: string }) {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  await db('sessions').insert({
    token_hash: hashToken(token),
    user_id: input.userId,
    workspace_id: input.workspaceId,
    csrf_token: randomBytes(32).toString('base64url'),
    created_at: now,
    last_seen_at: now,
  });
  return token;
}

/** The live session of a cookie token, its idle clock restarted; null when unknown, ended or expired. */
export async function resumeSession(db: Db, clock: Clock, token: string): Promise<Session | null> {
  const now = clock.now();
  const row = await db('sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.token_hash', hashToken(token))
    .whereNull('s.ended_at')
    .first('s.token_hash', 's.user_id', 'u.email', 's.workspace_id', 's.csrf_token', 's.created_at', 's.last_seen_at');
  if (!row) return null;
  const idleFor = now.getTime() - new Date(row.last_seen_at).getTime();
  const age = now.getTime() - new Date(row.created_at).getTime();
  if (idleFor > SESSION_IDLE_MS || age > SESSION_ABSOLUTE_MS) {
    await db('sessions').where({ token_hash: row.token_hash }).update({ ended_at: now });
    return null;
  }
  if (idleFor > TOUCH_EVERY_MS)
    await db('sessions').where({ token_hash: row.token_hash }).update({ last_seen_at: now });
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    email: row.email,
    workspaceId: row.workspace_id,
    csrfToken: row.csrf_token,
  };
}

export async function endSession(db: Db, clock: Clock, tokenHash: string): Promise<void> {
  await db('sessions').where({ token_hash: tokenHash }).whereNull('ended_at').update({ ended_at: clock.now() });
}

/** Ends every session of a user but one (a password change keeps the session that made it). */
export async function endOtherSessions(db: Db, clock: Clock, userId: string, keepTokenHash?: string): Promise<number> {
  const query = db('sessions').where({ user_id: userId }).whereNull('ended_at');
  if (keepTokenHash) query.whereNot({ token_hash: keepTokenHash });
  return query.update({ ended_at: clock.now() });
}
