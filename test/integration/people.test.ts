import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { SettableClock } from '../../src/clock';
import { createAccount } from '../../src/accounts/repository';
import { acceptInvitation, createInvitation, INVITATION_TTL_MS, openInvitation } from '../../src/people/invitations';
import { returnAttempt, takeAttempt } from '../../src/people/attempt-limit';
import { LOGIN_THROTTLE, takeLoginAttempt } from '../../src/people/login-throttle';
import { hashPassword } from '../../src/people/passwords';
import { changeMember, LastOwnerError } from '../../src/people/members';
import {
  endOtherSessions,
  resumeSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  startSession,
} from '../../src/people/sessions';
import {
  checkCredentials,
  EmailTakenError,
  insertUser,
  looksLikeEmail,
  membershipsOf,
  signUpUser,
} from '../../src/people/users';
import { createDb } from '../../src/db/knex';
import { getStack } from '../support/stack';

const PASSWORD = 'violet-harbour-lantern-42';
let counter = 0;
const email = (label: string) => `${label}-${process.pid}-${Date.now()}-${++counter}@example.com`;
const HOUR = 3600_000;

describe('people: sessions, throttling, invitations, admin CLI', function () {
  this.timeout(60_000);
  // Its own clock: moving it never disturbs the other tests on the shared stack.
  const clock = new SettableClock();
  beforeEach(() => clock.set('2026-11-23T08:00:00Z'));

  it('ends a session after 12 idle hours, and after 7 days however busy', async () => {
    const { db } = await getStack();
    const { user, workspaceId } = await signUpUser(db, {
      email: email('session'),
      password: PASSWORD,
      now: clock.now(),
    });
    const idle = await startSession(db, clock, { userId: user.id, workspaceId });
    clock.advance(SESSION_IDLE_MS - 60_000);
    assert.ok(await resumeSession(db, clock, idle), 'just under the idle time-out');
    clock.advance(SESSION_IDLE_MS - 60_000);
    assert.ok(await resumeSession(db, clock, idle), 'each request restarts the idle clock');
    clock.advance(SESSION_IDLE_MS + 1000);
    assert.equal(await resumeSession(db, clock, idle), null, 'idle too long');

    clock.set('2026-11-23T08:00:00Z');
    const busy = await startSession(db, clock, { userId: user.id, workspaceId });
    for (let at = 0; at + 6 * HOUR < SESSION_ABSOLUTE_MS; at += 6 * HOUR) {
      clock.advance(6 * HOUR);
      assert.ok(await resumeSession(db, clock, busy));
    }
    clock.advance(7 * HOUR); // 169 h after log-in, 7 h after the last request
    assert.equal(await resumeSession(db, clock, busy), null, 'older than 7 days');
    assert.equal(await resumeSession(db, clock, 'not-a-token'), null);
  });

  it('ends all other sessions of a user (password change)', async () => {
    const { db } = await getStack();
    const { user, workspaceId } = await signUpUser(db, {
      email: email('others'),
      password: PASSWORD,
      now: clock.now(),
    });
    const kept = await startSession(db, clock, { userId: user.id, workspaceId });
    const other = await startSession(db, clock, { userId: user.id, workspaceId });
    const keptSession = await resumeSession(db, clock, kept);
    assert.equal(await endOtherSessions(db, clock, user.id, keptSession!.tokenHash), 1);
    assert.ok(await resumeSession(db, clock, kept));
    assert.equal(await resumeSession(db, clock, other), null);
  });

  it('counts log-in attempts per e-mail and per address over a sliding window; a success gives its own back', async () => {
    const { db } = await getStack();
    const target = email('throttle');
    const ip = `198.51.100.${(process.pid % 200) + 1}`;
    for (let i = 0; i < LOGIN_THROTTLE.perEmail - 1; i++) assert.ok(await takeLoginAttempt(db, clock, target, ip));
    const last = await takeLoginAttempt(db, clock, target.toUpperCase(), ip);
    assert.ok(last, 'the fifth attempt is still let through');
    assert.equal(await takeLoginAttempt(db, clock, target, '192.0.2.9'), null, 'per e-mail, from any address');
    await returnAttempt(db, last);
    assert.ok(await takeLoginAttempt(db, clock, target, ip), 'a given-back attempt no longer counts');

    const sprayer = `203.0.113.${(process.pid % 200) + 1}`;
    for (let i = 0; i < LOGIN_THROTTLE.perIp; i++)
      assert.ok(await takeLoginAttempt(db, clock, email('spray'), sprayer));
    assert.equal(await takeLoginAttempt(db, clock, email('fresh'), sprayer), null, 'per address, for any e-mail');

    clock.advance(LOGIN_THROTTLE.windowMs + 1000);
    assert.ok(await takeLoginAttempt(db, clock, target, ip), 'the window passed');
    assert.ok(await takeLoginAttempt(db, clock, email('fresh'), sprayer));
  });

  it('lets exactly the limit of 200 concurrent attempts through, from two connection pools', async () => {
    const { db, config } = await getStack();
    // A second pool stands for a second API process: the count holds across processes, not just in one.
    const other = createDb(config.databaseUrl!, { max: 10 });
    try {
      const rule = { subject: `test:${email('concurrent')}`, limit: 7, windowMs: 60_000 };
      const taken = await Promise.all(
        Array.from({ length: 200 }, (_, i) => takeAttempt(i % 2 ? db : other, clock, [rule])),
      );
      assert.equal(taken.filter(Boolean).length, 7);
    } finally {
      await other.destroy();
    }
  });

  it('signs up in one transaction: a 254-character e-mail gets its workspace, a taken one stores nothing', async () => {
    const { db } = await getStack();
    const long = `${'l'.repeat(254 - '@example.com'.length - 6)}${String(++counter).padStart(6, '0')}@example.com`;
    assert.equal(long.length, 254);
    assert.ok(looksLikeEmail(long));
    assert.equal(looksLikeEmail(`x${long}`), false, 'longer than RFC 5321 allows');
    assert.equal(looksLikeEmail('nul\u0000@example.com'), false);
    const created = await signUpUser(db, { email: long, password: PASSWORD, now: clock.now() });
    const workspace = await db('workspaces').where({ id: created.workspaceId }).first('name');
    assert.ok(workspace.name.length <= 255, `${workspace.name.length} characters`);
    assert.match(workspace.name, /…'s workspace$/);
    assert.deepEqual(
      (await membershipsOf(db, created.user.id)).map((m) => m.role),
      ['owner'],
    );

    const [{ accounts: before }] = await db('accounts').count('* as accounts');
    await assert.rejects(
      signUpUser(db, { email: long.toUpperCase(), password: PASSWORD, now: clock.now() }),
      EmailTakenError,
    );
    const [{ accounts: after }] = await db('accounts').count('* as accounts');
    assert.equal(Number(after), Number(before), 'no account or workspace left without its user');
  });

  it('lets one of 20 concurrent acceptances of an invitation win; the others store nothing', async () => {
    const { db } = await getStack();
    const owner = await signUpUser(db, { email: email('inviter'), password: PASSWORD, now: clock.now() });
    const invitee = email('invitee');
    const { token } = await createInvitation(db, clock, {
      workspaceId: owner.workspaceId,
      email: invitee,
      role: 'developer',
      invitedBy: owner.user.id,
    });
    const invitation = (await openInvitation(db, clock, token))!;
    const passwordHash = await hashPassword(PASSWORD);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => acceptInvitation(db, clock, invitation, { newUser: { passwordHash } })),
    );
    const winners = results.filter((r): r is string => r !== null);
    assert.equal(winners.length, 1);
    const users = await db('users').where({ email: invitee }).select('id');
    assert.deepEqual(
      users.map((u) => u.id),
      winners,
    );
    assert.deepEqual(
      (await membershipsOf(db, winners[0])).map((m) => [m.workspaceId, m.role]),
      [[owner.workspaceId, 'developer']],
    );
  });

  it('accepts an invitation once, within 7 days, and keeps an owner in every workspace', async () => {
    const { db } = await getStack();
    const owner = await signUpUser(db, { email: email('owner'), password: PASSWORD, now: clock.now() });
    const guest = await insertUser(db, { email: email('guest'), password: PASSWORD, now: clock.now() });
    const invited = await createInvitation(db, clock, {
      workspaceId: owner.workspaceId,
      email: guest.email,
      role: 'viewer',
      invitedBy: owner.user.id,
    });
    const invitation = await openInvitation(db, clock, invited.token);
    assert.equal(invitation?.role, 'viewer');
    assert.equal(await acceptInvitation(db, clock, invitation!, { userId: guest.id }), guest.id);
    assert.equal(await acceptInvitation(db, clock, invitation!, { userId: guest.id }), null, 'used once');
    assert.equal(await openInvitation(db, clock, invited.token), null);
    assert.deepEqual(
      (await membershipsOf(db, guest.id)).map((m) => [m.workspaceId, m.role]),
      [[owner.workspaceId, 'viewer']],
    );

    const late = await createInvitation(db, clock, {
      workspaceId: owner.workspaceId,
      email: email('late'),
      role: 'developer',
      invitedBy: owner.user.id,
    });
    clock.advance(INVITATION_TTL_MS + 1000);
    assert.equal(await openInvitation(db, clock, late.token), null, 'expired');

    await assert.rejects(
      changeMember(db, { workspaceId: owner.workspaceId, userId: owner.user.id, role: 'developer' }),
      LastOwnerError,
    );
    await assert.rejects(
      changeMember(db, { workspaceId: owner.workspaceId, userId: owner.user.id, role: null }),
      LastOwnerError,
    );
    await changeMember(db, { workspaceId: owner.workspaceId, userId: guest.id, role: 'owner' });
    await changeMember(db, { workspaceId: owner.workspaceId, userId: owner.user.id, role: null });
    assert.deepEqual(await membershipsOf(db, owner.user.id), []);
  });

  it('admin CLI: user create (password on stdin) and user list --json', async () => {
    const { db, config } = await getStack();
    const account = await createAccount(db, { tier: 'pro', now: clock.now() });
    const address = email('cli');
    const created = await cli(
      config.databaseUrl!,
      `${PASSWORD}\n`,
      'user',
      'create',
      '--email',
      address,
      '--account',
      account.account_id,
      '--role',
      'developer',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout);
    assert.equal(body.workspace_id, account.workspace_id);
    assert.equal(body.role, 'developer');
    assert.ok(await checkCredentials(db, address, PASSWORD), 'the password from stdin logs in');

    const weak = await cli(
      config.databaseUrl!,
      'password1\n',
      'user',
      'create',
      '--email',
      email('weak'),
      '--account',
      account.account_id,
      '--role',
      'viewer',
      '--json',
    );
    assert.equal(weak.code, 1);
    assert.match(JSON.parse(weak.stdout).error.message, /at least 10 characters/);
    const blanks = email('blank');
    const spaces = await cli(
      config.databaseUrl!,
      `${' '.repeat(10)}\n`,
      'user',
      'create',
      '--email',
      blanks,
      '--account',
      account.account_id,
      '--role',
      'viewer',
      '--json',
    );
    assert.equal(spaces.code, 1, 'a password of ten spaces');
    assert.match(JSON.parse(spaces.stdout).error.message, /not only spaces/);
    assert.equal(await db('users').where({ email: blanks }).first(), undefined);

    const listed = await cli(config.databaseUrl!, '', 'user', 'list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const entry = JSON.parse(listed.stdout).data.find((u: { email: string }) => u.email === address);
    assert.deepEqual(entry.memberships, [
      { workspace_id: account.workspace_id, account_id: account.account_id, role: 'developer' },
    ]);
  });
});

/** `npm run --silent admin -- …` with this text on standard input. */
function cli(
  databaseUrl: string,
  stdin: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: path.join(__dirname, '..', '..'),
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
