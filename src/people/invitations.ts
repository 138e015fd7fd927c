import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { randomBase62 } from '../ids';
import type { Role } from './roles';
import { addMembership, insertUserRow, normalizeEmail } from './users';

/** An invitation link works for 7 days, once. Only a hash of its token is stored. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

export interface Invitation {
  id: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  role: Role;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

export async function createInvitation(
  db: Db,
  clock: Clock,
  input: { workspaceId: string; email: string; role: Role; invitedBy: string },
): Promise<{ id: string; token: string }> {
  const token = randomBytes(32).toString('base64url');
  const id = `inv_${randomBase62(16)}`;
  const now = clock.now();
  await db('invitations').insert({
    id,
    workspace_id: input.workspaceId,
    email: normalizeEmail(input.email),
    role: input.role,
    token_hash: hashToken(token),
    invited_by: input.invitedBy,
    created_at: now,
    expires_at: new Date(now.getTime() + INVITATION_TTL_MS),
  });
  return { id, token };
}

/** The invitation a link's token names, if it is still open (not accepted, not expired, not withdrawn). */
export async function openInvitation(db: Db, clock: Clock, token: string): Promise<Invitation | null> {
  const row = await db('invitations as i')
    .join('workspaces as w', 'w.id', 'i.workspace_id')
    .where('i.token_hash', hashToken(token))
    .whereNull('i.accepted_at')
    .where('i.expires_at', '>', clock.now())
    .first('i.id', 'i.workspace_id', 'w.name', 'i.email', 'i.role');
  return row
    ? { id: row.id, workspaceId: row.workspace_id, workspaceName: row.name, email: row.email, role: row.role }
    : null;
}

/** Who accepts: an existing user (password already checked), or a new user with a hashed password. */
export type Acceptor = { userId: string } | { newUser: { passwordHash: string } };

/**
 * Uses the invitation, once: in one transaction that locks its row, marks it accepted, creates the
 * new user when there is one and adds the membership. Concurrent accepts wait for the lock and then
 * find it used: exactly one wins, and a loser stores nothing (no user without a workspace). The user's
 * id, or null when the invitation was already used, withdrawn or has expired.
 */
export async function acceptInvitation(
  db: Db,
  clock: Clock,
  invitation: Invitation,
  acceptor: Acceptor,
): Promise<string | null> {
  const now = clock.now();
  return db.transaction(async (trx) => {
    const open = await trx('invitations')
      .where({ id: invitation.id })
      .whereNull('accepted_at')
      .where('expires_at', '>', now)
      .forUpdate()
      .first('id');
    if (!open) return null;
    const userId =
      'userId' in acceptor
        ? acceptor.userId
        : (await insertUserRow(trx, { email: invitation.email, passwordHash: acceptor.newUser.passwordHash, now })).id;
    await trx('invitations').where({ id: invitation.id }).update({ accepted_at: now });
    await addMembership(trx, { workspaceId: invitation.workspaceId, userId, role: invitation.role, now });
    return userId;
  });
}

export async function pendingInvitations(db: Db, clock: Clock, workspaceId: string) {
  return db('invitations')
    .where({ workspace_id: workspaceId })
    .whereNull('accepted_at')
    .where('expires_at', '>', clock.now())
    .orderBy('created_at', 'asc')
    .select('id', 'email', 'role', 'expires_at');
}

export async function withdrawInvitation(db: Db, workspaceId: string, invitationId: string): Promise<void> {
  await db('invitations').where({ id: invitationId, workspace_id: workspaceId }).whereNull('accepted_at').delete();
}
