import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { SettableClock } from '../../src/clock';
import { createAccount } from '../../src/accounts/repository';
import { acceptInvitation, createInvitation, INVITATION_TTL_MS, openInvitation } from '../../src/people/invitations';
import { LOGIN_THROTTLE, loginThrottled, recordLoginFailure } from '../../src/people/login-throttle';
import { changeMember, LastOwnerError } from '../../src/people/members';
import {
  endOtherSessions,
  resumeSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  startSession,
} from '../../src/people/sessions';
import { checkCredentials, insertUser, membershipsOf, signUpUser } from '../../src/people/users';
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

  it('throttles failed log-ins per e-mail and per address over a sliding window', async () => {
    const { db } = await getStack();
    const target = email('throttle');
    const ip = `198.51.100.${(process.pid % 200) + 1}`;
    for (let i = 0; i < LOGIN_THROTTLE.perEmail - 1; i++) await recordLoginFailure(db, clock, target, ip);
    assert.equal(await loginThrottled(db, clock, target, ip), false);
    await recordLoginFailure(db, clock, target.toUpperCase(), ip);
    assert.equal(await loginThrottled(db, clock, target, '192.0.2.9'), true, 'per e-mail, from any address');

    const sprayer = `203.0.113.${(process.pid % 200) + 1}`;
    for (let i = 0; i < LOGIN_THROTTLE.perIp; i++) await recordLoginFailure(db, clock, email('spray'), sprayer);
    assert.equal(await loginThrottled(db, clock, email('fresh'), sprayer), true, 'per address, for any e-mail');

    clock.advance(LOGIN_THROTTLE.windowMs + 1000);
    assert.equal(await loginThrottled(db, clock, target, ip), false, 'the window passed');
    assert.equal(await loginThrottled(db, clock, email('fresh'), sprayer), false);
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
    assert.equal(await acceptInvitation(db, clock, invitation!, guest.id), true);
    assert.equal(await acceptInvitation(db, clock, invitation!, guest.id), false, 'used once');
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
