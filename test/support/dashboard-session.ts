import { randomBase62 } from '../../src/ids';
import { startSession } from '../../src/people/sessions';
import { addMembership } from '../../src/people/users';
import { getStack, type TestAccount } from './stack';

/**
 * A dashboard session of a new owner of the account's workspace, as the Cookie header a browser
 * would send: for tests that read dashboard pages over plain HTTP, without a sign-up's password hash.
 */
export async function ownerSessionCookie(account: TestAccount): Promise<string> {
  const { db, clock } = await getStack();
  const now = clock.now();
  const userId = `usr_${randomBase62(16)}`;
  await db('users').insert({
    id: userId,
    email: `${userId.toLowerCase()}@owner.example`,
    // Never matches a password: this owner only ever uses the session below.
    password_hash: 'unusable',
    created_at: now,
    password_changed_at: now,
  });
  await addMembership(db, { workspaceId: account.workspaceId, userId, role: 'owner', now });
  const token = await startSession(db, clock, { userId, workspaceId: account.workspaceId });
  return `dash_session=${token}`;
}
