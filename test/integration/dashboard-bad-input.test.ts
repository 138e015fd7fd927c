import assert from 'node:assert/strict';
import type { RunningApi } from '../../processes/api-service';
import { setAccountTier } from '../../src/accounts/repository';
import { LOGIN_REFUSED } from '../../src/dashboard/pages/login';
import { createInvitation } from '../../src/people/invitations';
import { signUpUser } from '../../src/people/users';
import { DashboardClient, pageMessage, uniqueClientAddress, type PageAnswer } from '../support/dashboard-client';
import { getStack, startExtraApi, stopExtraApi } from '../support/stack';

const PASSWORD = 'violet-harbour-lantern-42';
const NEW_PASSWORD = 'quiet-river-compass-77';
let counter = 0;
const email = (label: string) => `${label}-${process.pid}-${Date.now()}-${++counter}@example.com`;
/** An address of exactly this many characters. */
const emailOfLength = (length: number) => {
  const tail = `${String(++counter).padStart(6, '0')}@example.com`;
  return `${'e'.repeat(length - tail.length)}${tail}`;
};

/** Every table a dashboard form writes to: bad input must leave all of them as they were. */
const TABLES = [
  'users',
  'accounts',
  'workspaces',
  'memberships',
  'invitations',
  'sessions',
  'api_keys',
  'sites',
  'webhooks',
  'workspace_branding',
  'site_finding_triage',
  'notification_channels',
  'mail_outbox',
  'audits',
  'throttle_attempts',
];

async function snapshot(): Promise<Record<string, string>> {
  const { db } = await getStack();
  const counts: Record<string, string> = {};
  // Counts and, for append-only tables, the newest row: a deleted row cannot hide an inserted one.
  for (const table of TABLES) {
    const [row] = await db(table).count('* as n');
    counts[table] = String(row.n);
  }
  const [{ newest }] = await db('throttle_attempts').max('id as newest');
  counts.throttle_attempts = String(newest);
  const [{ changed }] = await db('users').max('password_changed_at as changed');
  counts.password_changed_at = String(changed);
  // Changes that keep the count: a site's schedule (its revision) and a channel's removal (deleted_at).
  const [{ revisions }] = await db('sites').sum('revision as revisions');
  counts.site_revisions = String(revisions);
  const [{ removed }] = await db('notification_channels').whereNotNull('deleted_at').count('* as removed');
  counts.removed_channels = String(removed);
  return counts;
}

/** A refusal page: this status, a message matching, a link back, never the error page. */
function assertRefusal(answer: PageAnswer, status: number, message: RegExp, what: string): void {
  assert.equal(
    answer.status,
    status,
    `${what}: ${answer.status} ${pageMessage(answer.text) || answer.text.slice(0, 300)}`,
  );
  assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, what);
  assert.match(pageMessage(answer.text), message, what);
  assert.doesNotMatch(answer.text, /Something went wrong/, what);
}

interface Form {
  path: string;
  fields: Record<string, string>;
  /** The page that carries the form (its CSRF token), when not the form's own address. */
  page?: string;
  /** The form is multipart/form-data (the branding form). */
  multipart?: boolean;
  signedOut?: boolean;
}

/**
 * The dashboard's bad-input corpus over real HTTP, on an API of its own that trusts X-Forwarded-For
 * (its sign-ups and log-ins count against addresses no other test uses). Every case gets a page
 * with a clear message and a 4xx status, never 500, and stores nothing.
 */
describe('dashboard: bad input on every form', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let owner: DashboardClient;
  let ownerEmail: string;
  let forms: Form[];
  let invitationToken: string;

  const fresh = () => new DashboardClient(api.url, uniqueClientAddress());
  async function send(form: Form, fields: Record<string, string>, client?: DashboardClient): Promise<PageAnswer> {
    const sender = client ?? (form.signedOut ? fresh() : owner);
    if (form.signedOut) await sender.open(form.page ?? (form.path.startsWith('/invitations/') ? form.path : '/login'));
    if (!form.multipart) return sender.post(form.path, fields);
    const body = new FormData();
    body.append('_csrf', sender.csrf);
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
    const encoded = new Request('http://x/', { method: 'POST', body });
    const blob = await encoded.blob();
    return sender.postRaw(form.path, blob, encoded.headers.get('content-type')!);
  }

  before(async () => {
    const { config, db, clock } = await getStack();
    api = await startExtraApi({ config: { ...config, trustProxy: true } });
    owner = fresh();
    ownerEmail = email('owner');
    await owner.open('/signup');
    assert.equal((await owner.post('/signup', { email: ownerEmail, password: PASSWORD })).status, 302);
    const membership = await db('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .join('workspaces as w', 'w.id', 'm.workspace_id')
      .where('u.email', ownerEmail)
      .first('m.workspace_id', 'w.account_id', 'u.id as user_id');
    await setAccountTier(db, { accountId: membership.account_id, tier: 'pro', now: clock.now() });

    // Something real behind every address that names one.
    const member = await signUpUser(db, { email: email('member'), password: PASSWORD, now: clock.now() });
    await db('memberships').insert({
      workspace_id: membership.workspace_id,
      user_id: member.user.id,
      role: 'viewer',
      created_at: clock.now(),
    });
    const invited = await createInvitation(db, clock, {
      workspaceId: membership.workspace_id,
      email: email('pending'),
      role: 'viewer',
      invitedBy: membership.user_id,
    });
    invitationToken = (
      await createInvitation(db, clock, {
        workspaceId: membership.workspace_id,
        email: email('invitee'),
        role: 'developer',
        invitedBy: membership.user_id,
      })
    ).token;
    await owner.open('/test/keys');
    assert.equal((await owner.post('/test/keys', {})).status, 201);
    const key = await db('api_keys').where({ workspace_id: membership.workspace_id }).first('id');
    await owner.open('/test/sites');
    const site = await owner.post('/test/sites', { domain: 'https://example.com', schedule: 'weekly' });
    assert.equal(site.status, 303, pageMessage(site.text));
    const siteId = (await db('sites').where({ workspace_id: membership.workspace_id }).first('id')).id;
    await owner.open('/test/webhooks');
    const hook = await owner.post('/test/webhooks', { url: 'http://127.0.0.1:9/hook', events: 'audit.completed' });
    assert.equal(hook.status, 201, pageMessage(hook.text));
    const webhookId = (await db('webhooks').where({ workspace_id: membership.workspace_id }).first('id')).id;
    await owner.open('/test/notification-channels');
    const channel = await owner.post('/test/notification-channels', {
      type: 'email',
      target: 'ops@example.com',
      events: 'audit.failed',
    });
    assert.equal(channel.status, 303, pageMessage(channel.text));
    const channelId = (await db('notification_channels').where({ workspace_id: membership.workspace_id }).first('id'))
      .id;
    await owner.open('/test/branding');

    forms = [
      { path: '/signup', fields: { email: email('signup'), password: PASSWORD }, signedOut: true },
      { path: '/login', fields: { email: ownerEmail, password: PASSWORD }, signedOut: true },
      { path: `/invitations/${invitationToken}`, fields: { password: PASSWORD }, signedOut: true },
      { path: '/password', fields: { current: PASSWORD, new: NEW_PASSWORD } },
      { path: '/members/invite', fields: { email: email('invite'), role: 'viewer' } },
      { path: `/members/${member.user.id}/role`, fields: { role: 'developer' } },
      { path: `/members/${member.user.id}/remove`, fields: {} },
      { path: `/members/invitations/${invited.id}/withdraw`, fields: {} },
      { path: '/keys', fields: {} },
      { path: '/test/keys', fields: {} },
      { path: `/test/keys/${key.id}/allowlist`, fields: { cidrs: '192.0.2.0/24' } },
      { path: `/test/keys/${key.id}/revoke`, fields: {} },
      { path: '/audits', fields: { domain: 'https://example.com', tier: 'pro' } },
      { path: '/test/audits', fields: { domain: 'https://example.com', tier: 'pro' } },
      { path: '/test/sites', fields: { domain: 'https://example.net', schedule: 'daily' } },
      { path: `/test/sites/${siteId}/pause`, fields: {} },
      { path: `/test/sites/${siteId}/resume`, fields: {} },
      { path: `/test/sites/${siteId}/findings/fp_0123abcd`, fields: { status: 'ignored', note: 'seen' } },
      {
        path: `/test/sites/${siteId}/schedule`,
        fields: { schedule: 'weekly', time_zone: 'Europe/Berlin', at: '09:30', weekday: 'mon', day_of_month: '' },
      },
      { path: `/test/sites/${siteId}/delete`, fields: {} },
      { path: '/test/webhooks', fields: { url: 'http://127.0.0.1:9/other', events: 'audit.failed' } },
      { path: `/test/webhooks/${webhookId}/deliveries/dlv_0123abcd/retry`, fields: {} },
      { path: `/test/webhooks/${webhookId}/test`, fields: {} },
      { path: `/test/webhooks/${webhookId}/rotate-secret`, fields: { grace_seconds: '3600' } },
      { path: `/test/webhooks/${webhookId}/enable`, fields: {} },
      { path: `/test/webhooks/${webhookId}/remove`, fields: {} },
      {
        path: '/test/notification-channels',
        fields: { type: 'slack', target: 'http://127.0.0.1:9/hook', events: 'site.regressed' },
      },
      { path: `/test/notification-channels/${channelId}/remove`, fields: {} },
      {
        path: '/test/branding',
        fields: { display_name: 'Acme', primary_color: '#112233', footer_text: 'Footer', contact_line: 'Contact' },
        multipart: true,
      },
      { path: '/logout', fields: {} },
    ];
  });
  after(() => stopExtraApi(api));

  it('refuses NUL and other control characters in every field of every form, naming the field', async () => {
    const before = await snapshot();
    const failures: string[] = [];
    for (const form of forms) {
      // Forms without fields of their own still carry whatever a client adds.
      const names = Object.keys(form.fields).length ? Object.keys(form.fields) : ['comment'];
      for (const name of names) {
        for (const control of ['\u0000', '\u001b', '\u007f', '\u0085']) {
          const fields = { ...form.fields, [name]: `${form.fields[name] ?? 'text'}${control}more` };
          const answer = await send(form, fields);
          try {
            assertRefusal(answer, 400, new RegExp(`The field "${name}" contains a control character`), form.path);
          } catch (err) {
            failures.push(`${form.path} ${name} U+${control.charCodeAt(0).toString(16)}: ${(err as Error).message}`);
          }
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(await snapshot(), before, 'nothing stored');
  });

  it('refuses control characters in the page address and query parameters', async () => {
    const before = await snapshot();
    const failures: string[] = [];
    // Every form whose address names something (an id or a token): a NUL at the end of that name.
    const named = /\/((?:usr|inv|key|site|wh|dlv|fp|nch)_[0-9A-Za-z]+|[\w-]{43})(?=\/|$)/;
    for (const form of forms.filter((f) => named.test(f.path))) {
      const path = form.path.replace(named, '/$1%00');
      const answer = await send({ ...form, path, page: form.path }, form.fields);
      try {
        assertRefusal(answer, 400, /The page address contains a control character/, path);
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    for (const path of ['/test/audits?cursor=%00', '/audits?status=%1B', '/test/webhooks?x=%7F', '/sites%00']) {
      try {
        assertRefusal(await owner.get(path), 400, /contains a control character/, path);
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    assert.deepEqual(failures, []);
    assertRefusal(await owner.get('/audits/%E0%A4%A'), 400, /percent-encoding is broken/, 'broken encoding');
    // An API client (not asking for HTML) keeps the API's answer for a path that is not a page.
    const apiAnswer = await fetch(`${api.url}/no-such-path%00`, { headers: { Accept: 'application/json' } });
    assert.equal(apiAnswer.status, 404);
    assert.equal(((await apiAnswer.json()) as { error: { code: string } }).error.code, 'not_found');
    assert.deepEqual(await snapshot(), before, 'nothing stored');
  });

  it('refuses oversize bodies on every form with a page saying how much a form may send', async () => {
    const before = await snapshot();
    const failures: string[] = [];
    for (const form of forms) {
      const size = form.multipart ? 300 * 1024 : 80 * 1024;
      const answer = await send(form, { ...form.fields, padding: 'x'.repeat(size) });
      try {
        assertRefusal(answer, 413, form.multipart ? /at most 256 KiB/ : /at most 64 KiB/, form.path);
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(await snapshot(), before, 'nothing stored');
  });

  it('signs a 254-character e-mail up whole, and refuses longer ones on every e-mail field', async () => {
    const { db } = await getStack();
    const longest = emailOfLength(254);
    const client = fresh();
    await client.open('/signup');
    const created = await client.post('/signup', { email: longest, password: PASSWORD });
    assert.equal(created.status, 302, pageMessage(created.text));
    assert.equal((await client.get('/')).status, 200, 'signed in, with a workspace');
    const row = await db('users as u')
      .join('memberships as m', 'm.user_id', 'u.id')
      .join('workspaces as w', 'w.id', 'm.workspace_id')
      .where('u.email', longest)
      .first('w.name', 'm.role');
    assert.equal(row.role, 'owner');
    assert.ok(row.name.length <= 255);

    const before = await snapshot();
    for (const length of [255, 1000, 60_000]) {
      const tooLong = emailOfLength(length);
      const signUp = fresh();
      await signUp.open('/signup');
      assertRefusal(
        await signUp.post('/signup', { email: tooLong, password: PASSWORD }),
        422,
        /at most 254 characters/,
        `sign-up ${length}`,
      );
      await owner.open('/members');
      assertRefusal(
        await owner.post('/members/invite', { email: tooLong, role: 'viewer' }),
        422,
        /Enter an e-mail address/,
        `invite ${length}`,
      );
    }
    assert.deepEqual(await snapshot(), before, 'nothing stored');
    const logIn = fresh();
    await logIn.open('/login');
    assertRefusal(
      await logIn.post('/login', { email: emailOfLength(60_000), password: PASSWORD }),
      401,
      new RegExp(LOGIN_REFUSED.replace(/[.?]/g, '\\$&')),
      'log-in',
    );

    await owner.open('/members');
    const invited = await owner.post('/members/invite', { email: emailOfLength(254), role: 'viewer' });
    assert.equal(invited.status, 201, pageMessage(invited.text));
    const link = /\/invitations\/[\w-]{43}/.exec(invited.text)![0];
    const invitee = fresh();
    await invitee.open(link);
    assert.equal((await invitee.post(link, { password: PASSWORD })).status, 302, 'the invitation works too');
  });

  it('answers extreme and invalid date filters on both audit lists with a page naming the filter', async () => {
    const failures: string[] = [];
    const invalid = [
      '999999-01-01',
      '-1',
      'NaN',
      '1e400',
      'Infinity',
      '0000-01-01',
      '2026-02-30',
      '2026-13-01',
      '2026-1-1',
      '+275760-09-13',
      '9999-12-32',
      '2026-01-01T00:00:00Z',
      'x'.repeat(5000),
    ];
    for (const list of ['/audits', '/test/audits']) {
      for (const [name, label] of [
        ['completed_after', 'Completed after'],
        ['completed_before', 'Completed before'],
      ]) {
        for (const value of invalid) {
          const path = `${list}?${new URLSearchParams({ [name]: value })}`;
          try {
            assertRefusal(await owner.get(path), 400, new RegExp(`${label} must be a day from 0001-01-01`), path);
          } catch (err) {
            failures.push((err as Error).message.slice(0, 300));
          }
        }
        for (const value of ['0001-01-01', '9999-12-31', '2024-02-29', '']) {
          const answer = await owner.get(`${list}?${new URLSearchParams({ [name]: value })}`);
          if (answer.status !== 200) failures.push(`${list} ${name}=${value}: ${answer.status}`);
        }
      }
      assertRefusal(await owner.get(`${list}?status=finished`), 400, /Status must be one of/, 'status');
    }
    assert.deepEqual(failures, []);
  });

  it('lets exactly one of 10 concurrent acceptances win for a new user; the others get a clear page', async () => {
    const { db, clock } = await getStack();
    const ownerRow = await db('users').where({ email: ownerEmail }).first('id');
    const workspace = await db('memberships').where({ user_id: ownerRow.id }).first('workspace_id');
    const address = email('concurrent-new');
    const { token } = await createInvitation(db, clock, {
      workspaceId: workspace.workspace_id,
      email: address,
      role: 'developer',
      invitedBy: ownerRow.id,
    });
    const clients = Array.from({ length: 10 }, fresh);
    for (const client of clients) await client.open(`/invitations/${token}`);
    const answers = await Promise.all(clients.map((c) => c.post(`/invitations/${token}`, { password: PASSWORD })));
    assert.equal(answers.filter((a) => a.status === 302).length, 1);
    for (const answer of answers.filter((a) => a.status !== 302))
      assertRefusal(answer, 410, /already used, withdrawn or has expired/, 'a losing acceptance');
    assert.equal(clients.filter((c) => c.signedIn).length, 1);
    const users = await db('users').where({ email: address }).select('id');
    assert.equal(users.length, 1, 'one user, not one per acceptance');
    const memberships = await db('memberships').where({ user_id: users[0].id }).select('role');
    assert.deepEqual(memberships, [{ role: 'developer' }]);
  });

  it('lets exactly one of 5 concurrent acceptances win for an existing user', async () => {
    const { db, clock } = await getStack();
    const ownerRow = await db('users').where({ email: ownerEmail }).first('id');
    const workspace = await db('memberships').where({ user_id: ownerRow.id }).first('workspace_id');
    const existing = await signUpUser(db, {
      email: email('concurrent-existing'),
      password: PASSWORD,
      now: clock.now(),
    });
    const { token } = await createInvitation(db, clock, {
      workspaceId: workspace.workspace_id,
      email: existing.user.email,
      role: 'viewer',
      invitedBy: ownerRow.id,
    });
    const clients = Array.from({ length: 5 }, fresh);
    for (const client of clients) await client.open(`/invitations/${token}`);
    const answers = await Promise.all(clients.map((c) => c.post(`/invitations/${token}`, { password: PASSWORD })));
    assert.equal(answers.filter((a) => a.status === 302).length, 1);
    for (const answer of answers.filter((a) => a.status !== 302))
      assertRefusal(answer, 410, /already used, withdrawn or has expired/, 'a losing acceptance');
    const joined = await db('memberships').where({ user_id: existing.user.id, workspace_id: workspace.workspace_id });
    assert.equal(joined.length, 1);
  });
});
