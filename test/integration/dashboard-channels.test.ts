import assert from 'node:assert/strict';
import { randomBase62 } from '../../src/ids';
import { startSession } from '../../src/people/sessions';
import { addMembership } from '../../src/people/users';
import type { Role } from '../../src/people/roles';
import { pageMessage } from '../support/dashboard-client';
import { ownerSessionCookie } from '../support/dashboard-session';
import { api, getStack, newAccount, type TestAccount } from '../support/stack';

/** A signed-in browser without a browser: the session cookie, our Origin, the CSRF token of the last page. */
class Session {
  csrf = '';
  constructor(
    readonly url: string,
    readonly cookie: string,
  ) {}

  async get(path: string) {
    const answer = await this.send(path);
    this.csrf = /name="_csrf" value="([^"]+)"/.exec(answer.text)?.[1] ?? this.csrf;
    return answer;
  }

  /** A form POST; `_csrf` is the session's token unless the fields name one. */
  async post(path: string, fields: Record<string, string | string[]>) {
    const body = new URLSearchParams({ _csrf: this.csrf });
    for (const [name, value] of Object.entries(fields)) {
      body.delete(name);
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    }
    return this.send(path, body.toString());
  }

  private async send(path: string, body?: string) {
    const response = await fetch(`${this.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        Cookie: this.cookie,
        Origin: this.url,
        Accept: 'text/html',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body,
    });
    return { status: response.status, location: response.headers.get('location'), text: await response.text() };
  }
}

async function session(account: TestAccount, role: Role = 'owner'): Promise<Session> {
  const { url, db, clock } = await getStack();
  if (role === 'owner') return new Session(url, await ownerSessionCookie(account));
  const userId = `usr_${randomBase62(16)}`;
  const now = clock.now();
  await db('users').insert({
    id: userId,
    email: `${userId.toLowerCase()}@${role}.example`,
    password_hash: 'unusable',
    created_at: now,
    password_changed_at: now,
  });
  await addMembership(db, { workspaceId: account.workspaceId, userId, role, now });
  return new Session(
    url,
    `dash_session=${await startSession(db, clock, { userId, workspaceId: account.workspaceId })}`,
  );
}

const channelsOf = async (account: TestAccount, mode = 'live') =>
  (await getStack())
    .db('notification_channels')
    .where({ workspace_id: account.workspaceId, mode })
    .whereNull('deleted_at');

/**
 * The dashboard's notification channels page (docs/dashboard.md, "Notifications page") over real
 * HTTP: the same service module as /v1/notification-channels, every plan, CSRF on every form.
 */
describe('dashboard: notification channels', function () {
  this.timeout(60_000);

  it('adds e-mail, Slack and Teams channels on every plan, lists them as the API does, and removes one', async () => {
    const account = await newAccount('free');
    const owner = await session(account);
    const empty = await owner.get('/notification-channels');
    assert.equal(empty.status, 200, pageMessage(empty.text));
    assert.match(empty.text, /<a href="\/notification-channels" aria-current="page">Notifications<\/a>/);
    assert.match(empty.text, /No notification channels yet\./);
    // Every plan: a free account gets the form, not an upgrade notice.
    assert.match(empty.text, /<button type="submit">Add channel<\/button>/);
    assert.doesNotMatch(empty.text, /notice-upgrade/);

    const add = (fields: Record<string, string | string[]>) => owner.post('/notification-channels', fields);
    const email = await add({ type: 'email', target: 'Ops@Example.COM', events: 'audit.failed' });
    assert.equal(email.status, 303, pageMessage(email.text));
    assert.equal(email.location, '/notification-channels?added=1');
    const slack = await add({
      type: 'slack',
      target: 'http://127.0.0.1:9/hook',
      events: ['site.regressed', 'audit.failed'],
    });
    assert.equal(slack.status, 303, pageMessage(slack.text));
    const teams = await add({
      type: 'teams',
      target: 'http://127.0.0.1:9/teams',
      events: ['webhook.failing', 'webhook.disabled'],
    });
    assert.equal(teams.status, 303, pageMessage(teams.text));

    const viaApi = await api('GET', '/v1/notification-channels', { key: account.liveKey });
    assert.deepEqual(
      viaApi.body.data.map((c: { type: string; target: string; events: string[] }) => [c.type, c.target, c.events]),
      [
        ['email', 'Ops@example.com', ['audit.failed']],
        ['slack', 'http://127.0.0.1:9/hook', ['site.regressed', 'audit.failed']],
        ['teams', 'http://127.0.0.1:9/teams', ['webhook.failing', 'webhook.disabled']],
      ],
    );
    const listed = await owner.get('/notification-channels?added=1');
    assert.match(listed.text, /Channel added\./);
    assert.match(listed.text, /Notification channels \(3 of at most 50\)/);
    assert.match(listed.text, /<code>Ops@example\.com<\/code>/);
    assert.match(listed.text, /<td>webhook\.failing, webhook\.disabled<\/td>/);
    // The other environment's page has its own channels: none.
    assert.match((await owner.get('/test/notification-channels')).text, /No notification channels yet\./);
    assert.deepEqual(await channelsOf(account, 'test'), []);

    const slackId = viaApi.body.data[1].channel_id;
    // Another workspace's owner cannot remove it: the list is shown, the channel stays.
    const stranger = await session(await newAccount('pro'));
    await stranger.get('/notification-channels');
    const foreign = await stranger.post(`/notification-channels/${slackId}/remove`, {});
    assert.equal(foreign.status, 303);
    assert.equal((await channelsOf(account)).length, 3);
    await owner.get('/notification-channels');
    const removed = await owner.post(`/notification-channels/${slackId}/remove`, {});
    assert.equal(removed.status, 303, pageMessage(removed.text));
    const after = await api('GET', '/v1/notification-channels', { key: account.liveKey });
    assert.deepEqual(
      after.body.data.map((c: { type: string }) => c.type),
      ['email', 'teams'],
    );
  });

  it("refuses bad input with the form's message, forged forms and viewers, and stores nothing", async () => {
    const account = await newAccount('pro');
    const owner = await session(account);
    await owner.get('/test/notification-channels');
    const valid = { type: 'slack', target: 'http://127.0.0.1:9/hook', events: ['audit.failed'] };
    const forged = await owner.post('/test/notification-channels', { ...valid, _csrf: 'not-the-token' });
    assert.equal(forged.status, 403);
    assert.match(pageMessage(forged.text), /This form has expired/);

    const cases: Array<[Record<string, string | string[]>, number, RegExp]> = [
      [{ type: 'discord' }, 422, /^Choose the type of channel: e-mail, Slack or Microsoft Teams\.$/],
      [{ target: '' }, 422, /^Enter the e-mail address or the incoming-webhook URL/],
      [{ target: `http://127.0.0.1:9/${'x'.repeat(2048)}` }, 422, /^Keep the address or URL under 2048 characters\.$/],
      [{ events: [] }, 422, /^Choose at least one event/],
      [{ events: ['audit.completed'] }, 422, /^Choose the events from the list, once each\.$/],
      [{ events: ['audit.failed', 'audit.failed'] }, 422, /^Choose the events from the list, once each\.$/],
      // The service's own words, as the API gives them.
      [{ type: 'email', target: 'ops@example.com, boss@example.com' }, 400, /e-mail address for type email/],
      [{ target: 'hooks.slack.com/services/x' }, 400, /^field target must be an absolute/],
      [{ target: 'https://10.0.0.1/hook' }, 400, /^field target cannot receive webhooks/],
      [{ target: 'http://93.184.215.14/hook' }, 400, /^field target must be an https:\/\/ URL/],
      [{ type: 'teams', target: 'ops@example.com' }, 400, /^field target must be an absolute/],
    ];
    for (const [bad, status, message] of cases) {
      const refused = await owner.post('/test/notification-channels', { ...valid, ...bad });
      assert.equal(refused.status, status, `${JSON.stringify(bad)}: ${pageMessage(refused.text)}`);
      assert.match(pageMessage(refused.text), message, JSON.stringify(bad));
      if (typeof bad.target === 'string' && bad.target !== '' && bad.target.length < 100)
        assert.ok(refused.text.includes(`value="${bad.target}"`), `the form keeps what was typed: ${bad.target}`);
    }
    assert.deepEqual(await channelsOf(account, 'test'), []);

    // The service's limit reaches the form with its message.
    for (let i = 0; i < 50; i++) {
      const created = await api('POST', '/v1/notification-channels', {
        key: account.testKey,
        body: { type: 'email', target: `ops${i}@example.com`, events: ['audit.failed'] },
      });
      assert.equal(created.status, 201, created.text);
    }
    const full = await owner.post('/test/notification-channels', {
      ...valid,
      type: 'email',
      target: 'one@example.com',
    });
    assert.equal(full.status, 400);
    assert.match(pageMessage(full.text), /at most 50 notification channels per environment/);
    assert.equal((await channelsOf(account, 'test')).length, 50);

    // Viewers read the list without controls; their forged POSTs are refused by role.
    const viewer = await session(account, 'viewer');
    const read = await viewer.get('/test/notification-channels');
    assert.equal(read.status, 200);
    assert.match(read.text, /ops0@example\.com/);
    assert.doesNotMatch(read.text, /Add channel|>Remove</);
    const refusedAdd = await viewer.post('/test/notification-channels', { ...valid, target: 'x@example.com' });
    assert.equal(refusedAdd.status, 403);
    assert.match(pageMessage(refusedAdd.text), /needs the developer role/);
    const first = (await channelsOf(account, 'test'))[0];
    assert.equal((await viewer.post(`/test/notification-channels/${first.id}/remove`, {})).status, 403);
    assert.equal((await channelsOf(account, 'test')).length, 50);
  });
});
