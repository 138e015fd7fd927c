import { createAccount } from '../accounts/repository';
import type { Db } from '../db/knex';
import { randomBase62 } from '../ids';
import { decoyHash, hashPassword, verifyPassword } from './passwords';
import type { Role } from './roles';

export interface User {
  id: string;
  email: string;
}

export interface Membership {
  workspaceId: string;
  workspaceName: string;
  accountId: string;
  role: Role;
}

const newUserId = (): string => `usr_${randomBase62(16)}`;

/** E-mail addresses compare case-insensitively and without surrounding blanks. */
export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

// workspaces.name is varchar(255): a sign-up's workspace is named after the e-mail, shortened to fit.
const WORKSPACE_NAME_MAX = 255;
const WORKSPACE_SUFFIX = "'s workspace";

/**
 * Plausible address: something@host.tld, no blanks or control characters, at most 254 characters
 * (RFC 5321's limit for a path); the mail that follows is the real test.
 */
export function looksLikeEmail(email: string): boolean {
  return email.length <= 254 && /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(email);
}

export class EmailTakenError extends Error {}

export async function findUserByEmail(db: Db, email: string): Promise<(User & { passwordHash: string }) | null> {
  const row = await db('users')
    .where({ email: normalizeEmail(email) })
    .first('id', 'email', 'password_hash');
  return row ? { id: row.id, email: row.email, passwordHash: row.password_hash } : null;
}

/** Stores a user whose password is already hashed (inside the caller's transaction, if any). */
export async function insertUserRow(db: Db, input: { email: string; passwordHash: string; now: Date }): Promise<User> {
  const user = { id: newUserId(), email: normalizeEmail(input.email) };
  const inserted = await db('users')
    .insert({ ...user, password_hash: input.passwordHash, created_at: input.now, password_changed_at: input.now })
    .onConflict('email')
    .ignore()
    .returning('id');
  if (inserted.length === 0) throw new EmailTakenError(`${user.email} already has an account`);
  return user;
}

export async function insertUser(db: Db, input: { email: string; password: string; now: Date }): Promise<User> {
  return insertUserRow(db, { email: input.email, passwordHash: await hashPassword(input.password), now: input.now });
}

/** "name@example.com's workspace", the address shortened (by whole characters) when it would not fit. */
export function workspaceNameFor(email: string): string {
  const chars = [...email];
  const room = WORKSPACE_NAME_MAX - WORKSPACE_SUFFIX.length;
  return `${chars.length > room ? `${chars.slice(0, room - 1).join('')}…` : email}${WORKSPACE_SUFFIX}`;
}

/**
 * Sign-up: a free account, its first workspace, and the new user as its owner, in one transaction:
 * either all of it is stored or none (a taken e-mail leaves nothing behind). The password is hashed
 * first, so the transaction holds no connection through the scrypt work.
 */
export async function signUpUser(
  db: Db,
  input: { email: string; password: string; now: Date },
): Promise<{ user: User; workspaceId: string; accountId: string }> {
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (trx) => {
    const user = await insertUserRow(trx, { email: input.email, passwordHash, now: input.now });
    const account = await createAccount(trx, {
      tier: 'free',
      workspaceName: workspaceNameFor(user.email),
      now: input.now,
    });
    await addMembership(trx, { workspaceId: account.workspace_id, userId: user.id, role: 'owner', now: input.now });
    return { user, workspaceId: account.workspace_id, accountId: account.account_id };
  });
}

/** The user when the password is right; the same work is done for unknown e-mails (no timing oracle). */
export async function checkCredentials(db: Db, email: string, password: string): Promise<User | null> {
  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
  return user && ok ? { id: user.id, email: user.email } : null;
}

export async function setPassword(db: Db, userId: string, password: string, now: Date): Promise<void> {
  await db('users')
    .where({ id: userId })
    .update({ password_hash: await hashPassword(password), password_changed_at: now });
}

export async function addMembership(
  db: Db,
  input: { workspaceId: string; userId: string; role: Role; now: Date },
): Promise<void> {
  await db('memberships')
    .insert({ workspace_id: input.workspaceId, user_id: input.userId, role: input.role, created_at: input.now })
    .onConflict(['workspace_id', 'user_id'])
    .merge(['role']);
}

export async function membershipsOf(db: Db, userId: string): Promise<Membership[]> {
  const rows = await db('memberships as m')
    .join('workspaces as w', 'w.id', 'm.workspace_id')
    .where('m.user_id', userId)
    .orderBy('m.created_at', 'asc')
    .select('m.workspace_id', 'w.name', 'w.account_id', 'm.role');
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    workspaceName: r.name,
    accountId: r.account_id,
    role: r.role,
  }));
}

export async function listUsers(
  db: Db,
): Promise<
  Array<User & { created_at: Date; memberships: Array<{ workspace_id: string; account_id: string; role: Role }> }>
> {
  const users = await db('users').orderBy('created_at', 'asc').select('id', 'email', 'created_at');
  const memberships = await db('memberships as m')
    .join('workspaces as w', 'w.id', 'm.workspace_id')
    .select('m.user_id', 'm.workspace_id', 'w.account_id', 'm.role');
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    created_at: new Date(u.created_at),
    memberships: memberships
      .filter((m) => m.user_id === u.id)
      .map((m) => ({ workspace_id: m.workspace_id, account_id: m.account_id, role: m.role })),
  }));
}
