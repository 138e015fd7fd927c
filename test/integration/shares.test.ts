import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setAccountTier } from '../../src/accounts/repository';
import { createAuditClient } from '../../src/client';
import { FileReportStorage } from '../../src/reports/file-storage';
import { pruneExpired } from '../../src/retention/prune';
import { assertEnvelope } from '../support/envelope';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';

/**
 * Share links (README "Share links") on the real stack: the API that manages them, and the public page
 * and badge they point to, fetched without a key as a visitor would.
 */

const TOKEN_URL = /^http:\/\/127\.0\.0\.1:\d+\/share\/([A-Za-z0-9_-]{43})$/;
const DAY_MS = 24 * 3600_000;

async function completedAudit(account: TestAccount, domain = 'https://shared.example'): Promise<string> {
  const trigger = await api('POST', '/v1/audits', { key: account.testKey, body: { domain } });
  assert.equal(trigger.status, 202, trigger.text);
  const done = await waitForAudit(account.testKey, trigger.body.audit_id);
  assert.equal(done.body.status, 'completed', done.text);
  return trigger.body.audit_id;
}

async function createShare(account: TestAccount, auditId: string, body?: unknown) {
  const response = await api('POST', `/v1/audits/${auditId}/shares`, { key: account.testKey, body });
  assert.equal(response.status, 201, response.text);
  return response.body as { share_id: string; url: string; expires_at: string; password_protected: boolean };
}

async function visit(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function shareRows(auditId: string) {
  const { db } = await getStack();
  return db('audit_shares').where({ audit_id: auditId });
}

describe('share links: create, list, revoke (API)', function () {
  this.timeout(60_000);
  let pro: TestAccount;
  let auditId: string;
  before(async () => {
    pro = await newAccount('pro');
    auditId = await completedAudit(pro);
  });

  it('creates links (30 days by default), lists them without URL or password, revokes them to 404', async () => {
    const { clock } = await getStack();
    const open = await createShare(pro, auditId);
    assert.match(open.share_id, /^shr_[0-9A-Za-z]{20}$/);
    assert.match(open.url, TOKEN_URL);
    assert.equal(open.password_protected, false);
    assert.ok(Math.abs(Date.parse(open.expires_at) - (clock.now().getTime() + 30 * DAY_MS)) < 60_000);
    const locked = await createShare(pro, auditId, { expires_in_days: 1, password: 'violet-harbour-lantern' });
    assert.equal(locked.password_protected, true);
    assert.ok(Math.abs(Date.parse(locked.expires_at) - (clock.now().getTime() + DAY_MS)) < 60_000);

    const list = await api('GET', `/v1/audits/${auditId}/shares`, { key: pro.testKey });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.map((s: { share_id: string }) => s.share_id),
      [locked.share_id, open.share_id],
    );
    for (const item of list.body.data)
      assert.deepEqual(Object.keys(item).sort(), [
        'audit_id',
        'created_at',
        'expires_at',
        'password_protected',
        'share_id',
        'status',
      ]);
    assert.equal(list.body.data[0].status, 'active');

    // Neither the token nor the password is stored: a digest of one, a scrypt hash of the other.
    const token = TOKEN_URL.exec(open.url)![1]!;
    for (const row of await shareRows(auditId)) {
      assert.ok(!JSON.stringify(row).includes(token));
      assert.ok(!JSON.stringify(row).includes('violet-harbour-lantern'));
    }
    const stored = (await shareRows(auditId)).find((r) => r.id === open.share_id);
    assert.ok(Buffer.from(stored.token_hash).equals(createHash('sha256').update(token).digest()));
    assert.match((await shareRows(auditId)).find((r) => r.id === locked.share_id).password_hash, /^scrypt\$/);

    assert.equal((await visit(open.url)).status, 200);
    const revoked = await api('DELETE', `/v1/shares/${open.share_id}`, { key: pro.testKey });
    assert.equal(revoked.status, 204, revoked.text);
    const page = await visit(open.url);
    assert.equal(page.status, 404);
    assert.equal(page.headers.get('x-robots-tag'), 'noindex');
    assert.match(page.text, /This link does not work/);
    assert.equal((await visit(`${open.url}/badge.svg`)).status, 404);
    const listed = await api('GET', `/v1/audits/${auditId}/shares`, { key: pro.testKey });
    assert.deepEqual(
      listed.body.data.map((s: { share_id: string }) => s.share_id),
      [locked.share_id],
    );
    assertEnvelope(
      await api('DELETE', `/v1/shares/${open.share_id}`, { key: pro.testKey }),
      404,
      'share_not_found',
      new RegExp(open.share_id),
    );
  });

  it('answers tier_required below pro on every route, before the request is looked at; a downgrade closes the links', async () => {
    const free = await newAccount('free');
    const freeAudit = await completedAudit(free);
    for (const [method, path, body] of [
      ['POST', `/v1/audits/${freeAudit}/shares`, { expires_in_days: 0 }],
      ['POST', '/v1/audits/not-an-id/shares', undefined],
      ['GET', `/v1/audits/${freeAudit}/shares`, undefined],
      ['DELETE', '/v1/shares/not-an-id', undefined],
    ] as const) {
      const response = await api(method, path, { key: free.testKey, body });
      assertEnvelope(
        response,
        403,
        'tier_required',
        /^Share links require the pro tier or higher; this account is on free$/,
      );
    }
    assert.equal((await shareRows(freeAudit)).length, 0);

    const team = await newAccount('team');
    const teamAudit = await completedAudit(team);
    const share = await createShare(team, teamAudit);
    assert.equal((await visit(share.url)).status, 200);
    const { db, clock } = await getStack();
    await setAccountTier(db, { accountId: team.accountId, tier: 'free', now: clock.now() });
    assert.equal((await visit(share.url)).status, 404, 'a link of an account no longer on pro opens nothing');
    assert.equal((await visit(`${share.url}/badge.svg`)).status, 404);
    await setAccountTier(db, { accountId: team.accountId, tier: 'team', now: clock.now() });
    assert.equal((await visit(share.url)).status, 200, 'and opens again on the way back up');
  });

  it('refuses bad input with 400 and the envelope, and stores nothing', async () => {
    const account = await newAccount('pro');
    const id = await completedAudit(account, 'https://bad-input.example');
    const cases: Array<{ body?: unknown; rawBody?: string; headers?: Record<string, string>; message: RegExp }> = [
      { body: { expires_in_days: 0 }, message: /expires_in_days must be >= 1/ },
      { body: { expires_in_days: 91 }, message: /expires_in_days must be <= 90/ },
      { body: { expires_in_days: 1.5 }, message: /expires_in_days must be of type integer/ },
      { body: { expires_in_days: '30' }, message: /expires_in_days must be of type integer/ },
      { body: { expires_in_days: null }, message: /expires_in_days must be of type integer/ },
      { body: { password: 'short' }, message: /password must NOT have fewer than 10 characters/ },
      { body: { password: 'x'.repeat(201) }, message: /password must NOT have more than 200 characters/ },
      { body: { password: 'qwertyuiop' }, message: /password is refused: .*too easy to guess/ },
      { body: { password: 'password123' }, message: /password is refused: .*common passwords/ },
      { body: { password: 'abc\u0000defghijkl' }, message: /password must not contain control characters/ },
      { body: { url: 'https://elsewhere.example' }, message: /field url is not allowed/ },
      { body: [], message: /body must be a JSON object/ },
      { rawBody: '{"expires_in_days": ', headers: { 'Content-Type': 'application/json' }, message: /not valid JSON/ },
      { rawBody: 'expires_in_days=3', headers: { 'Content-Type': 'text/plain' }, message: /Content-Type must be/ },
    ];
    for (const c of cases) {
      const response = await api('POST', `/v1/audits/${id}/shares`, { key: account.testKey, ...c });
      assertEnvelope(response, 400, 'invalid_request', c.message);
    }
    assertEnvelope(
      await api('POST', '/v1/audits/aud_%00/shares', { key: account.testKey, body: {} }),
      404,
      'audit_not_found',
    );
    assertEnvelope(await api('DELETE', '/v1/shares/shr_%01', { key: account.testKey }), 404, 'share_not_found');
    assert.equal((await shareRows(id)).length, 0);
  });

  it("answers audit_not_found for another workspace's audit (and another mode's), share_not_found for its links", async () => {
    const other = await newAccount('pro');
    for (const key of [other.testKey, pro.liveKey]) {
      assertEnvelope(
        await api('POST', `/v1/audits/${auditId}/shares`, { key, body: {} }),
        404,
        'audit_not_found',
        new RegExp(`no audit ${auditId} in this workspace`),
      );
      assertEnvelope(await api('GET', `/v1/audits/${auditId}/shares`, { key }), 404, 'audit_not_found');
    }
    const share = await createShare(pro, auditId);
    assertEnvelope(await api('DELETE', `/v1/shares/${share.share_id}`, { key: other.testKey }), 404, 'share_not_found');
    assert.equal((await visit(share.url)).status, 200, 'still open');
  });

  it('works through the typed client (src/client), its answers typed from the OpenAPI document', async () => {
    const { url } = await getStack();
    const client = createAuditClient({ baseUrl: `${url}/v1`, apiKey: pro.testKey });
    const path = { params: { path: { audit_id: auditId } } };
    const created = await client.POST('/audits/{audit_id}/shares', { ...path, body: { expires_in_days: 7 } });
    assert.equal(created.response.status, 201);
    const link: string = created.data!.url;
    assert.match(link, TOKEN_URL);
    const listed = await client.GET('/audits/{audit_id}/shares', path);
    assert.ok(listed.data!.data.some((s) => s.share_id === created.data!.share_id && s.status === 'active'));
    const revoked = await client.DELETE('/shares/{share_id}', {
      params: { path: { share_id: created.data!.share_id } },
    });
    assert.equal(revoked.response.status, 204);
    assert.equal((await visit(link)).status, 404);
  });

  it('are pruned 30 days after they ended (expired or revoked); the audit goes with its links', async () => {
    const { db, clock, config } = await getStack();
    const account = await newAccount('pro');
    const id = await completedAudit(account, 'https://pruned.example');
    const [ended, revoked, recent, live] = [
      await createShare(account, id),
      await createShare(account, id),
      await createShare(account, id),
      await createShare(account, id),
    ];
    const daysAgo = (n: number) => new Date(clock.now().getTime() - n * DAY_MS);
    await db('audit_shares')
      .where({ id: ended.share_id })
      .update({ expires_at: daysAgo(31) });
    await db('audit_shares')
      .where({ id: revoked.share_id })
      .update({ revoked_at: daysAgo(31) });
    await db('audit_shares')
      .where({ id: recent.share_id })
      .update({ expires_at: daysAgo(29) });
    await pruneExpired(db, new FileReportStorage(config.reportsDir), clock.now());
    assert.deepEqual((await shareRows(id)).map((r) => r.id).sort(), [recent.share_id, live.share_id].sort());
    await db('audits').where({ id }).delete();
    assert.equal((await shareRows(id)).length, 0);
  });
});
