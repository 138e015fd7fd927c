import assert from 'node:assert/strict';
import { assertValidAuditJson } from '../../src/audits/validate-audit';
import { AuditWorkflow } from '../../workflows';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';

async function trigger(key: string, domain: string) {
  const response = await api('POST', '/v1/audits', { key, body: { domain } });
  assert.equal(response.status, 202, response.text);
  return response;
}

describe('audits with a test key', () => {
  let account: TestAccount;
  before(async () => {
    account = await newAccount('pro');
  });

  it('are accepted as queued and complete with a schema-valid synthetic audit', async () => {
    const before = Date.now();
    const accepted = await trigger(account.testKey, 'https://Shop.Example.COM/');
    assert.deepEqual(Object.keys(accepted.body).sort(), ['audit_id', 'estimated_completion', 'status']);
    assert.equal(accepted.body.status, 'queued');
    assert.match(accepted.body.audit_id, /^aud_/);
    assert.ok(Date.parse(accepted.body.estimated_completion) >= before);
    assert.match(accepted.body.estimated_completion, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const done = await waitForAudit(account.testKey, accepted.body.audit_id);
    assert.equal(done.status, 200);
    const audit = done.body;
    assertValidAuditJson(audit);
    assert.equal(audit.audit_id, accepted.body.audit_id);
    assert.equal(audit.domain, 'https://shop.example.com');
    assert.equal(audit.version, 'v1');
    assert.equal(audit.mode, 'test');
    assert.equal(audit.tier, 'pro');
    assert.equal(audit.status, 'completed');
    assert.ok(audit.findings.length > 0 && audit.analyzers.length > 0);
  });

  it('serve exactly the stored bytes, and the findings alone', async () => {
    const { body } = await trigger(account.testKey, 'https://bytes.example.com');
    const done = await waitForAudit(account.testKey, body.audit_id);
    const { db } = await getStack();
    const row = await db('audits').where({ id: body.audit_id }).first('result_json', 'score', 'status');
    assert.equal(done.text, row.result_json);
    assert.equal(row.score, done.body.score);
    const findings = await api('GET', `/v1/audits/${body.audit_id}/findings`, { key: account.testKey });
    assert.deepEqual(findings.body, done.body.findings);
  });

  it('are deterministic per domain: same id and findings again, different for another domain or workspace', async () => {
    const first = await trigger(account.testKey, 'https://same.example.com');
    const firstAudit = (await waitForAudit(account.testKey, first.body.audit_id)).body;
    const second = await trigger(account.testKey, 'https://same.example.com/');
    assert.equal(second.body.audit_id, first.body.audit_id);
    assert.equal(second.body.status, 'queued');
    const secondAudit = (await waitForAudit(account.testKey, second.body.audit_id)).body;
    assert.deepEqual(secondAudit.findings, firstAudit.findings);
    assert.equal(secondAudit.score, firstAudit.score);

    const other = await trigger(account.testKey, 'https://other.example.com');
    assert.notEqual(other.body.audit_id, first.body.audit_id);
    const otherWorkspace = await newAccount('pro');
    const elsewhere = await trigger(otherWorkspace.testKey, 'https://same.example.com');
    assert.notEqual(elsewhere.body.audit_id, first.body.audit_id);
  });

  it('converge to one completed audit when the same domain is triggered again while it runs', async () => {
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => trigger(account.testKey, 'https://rerun.example.com')),
    );
    assert.equal(new Set(responses.map((r) => r.body.audit_id)).size, 1);
    const again = await trigger(account.testKey, 'https://rerun.example.com');
    const done = await waitForAudit(account.testKey, again.body.audit_id);
    assert.equal(done.body.status, 'completed');
    const { service } = await getStack();
    assert.deepEqual(await service.temporal.client.workflow.getHandle(again.body.audit_id).result(), {
      status: 'completed',
      attempts: 1,
    });
  });

  it('show a status envelope until complete and keep the workflow and its search attributes current', async () => {
    const { body } = await trigger(account.testKey, 'https://envelope.example.com');
    const early = await api('GET', `/v1/audits/${body.audit_id}`, { key: account.testKey });
    if (early.body.status !== 'completed') {
      assert.ok(['queued', 'running'].includes(early.body.status));
      assert.deepEqual(Object.keys(early.body).sort(), ['audit_id', 'domain', 'estimated_completion', 'status']);
      const pending = await api('GET', `/v1/audits/${body.audit_id}/findings`, { key: account.testKey });
      assert.ok(['queued', 'running', 'completed'].includes(pending.body.status ?? 'completed'));
    }
    await waitForAudit(account.testKey, body.audit_id);
    const { service } = await getStack();
    const handle = service.temporal.client.workflow.getHandle(body.audit_id);
    await handle.result();
    const description = await handle.describe();
    assert.equal(description.type, AuditWorkflow.name);
    const attributes = description.searchAttributes as Record<string, unknown[]>;
    assert.deepEqual(attributes.AuditStatus, ['completed']);
    assert.deepEqual(attributes.AuditDomain, ['https://envelope.example.com']);
    assert.deepEqual(attributes.WorkspaceId, [account.workspaceId]);
    assert.deepEqual(attributes.AuditMode, ['test']);
  });

  it('are visible only to their workspace and environment', async () => {
    const { body } = await trigger(account.testKey, 'https://private.example.com');
    const stranger = await newAccount('pro');
    const foreign = await api('GET', `/v1/audits/${body.audit_id}`, { key: stranger.testKey });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'audit_not_found');
    assert.equal((await api('GET', `/v1/audits/${body.audit_id}`, { key: account.liveKey })).status, 404);
    assert.equal((await api('GET', `/v1/audits/${body.audit_id}/findings`, { key: stranger.testKey })).status, 404);
  });

  it('consume no quota: the rate-limit headers keep the tier limit and the full remaining count', async () => {
    const fresh = await newAccount('pro');
    for (let i = 0; i < 12; i++) {
      const response = await trigger(fresh.testKey, `https://no-quota-${i}.example.com`);
      assert.equal(response.headers.get('x-ratelimit-limit'), '50');
      assert.equal(response.headers.get('x-ratelimit-remaining'), '50');
    }
    const usage = await api('GET', '/v1/usage', { key: fresh.testKey });
    assert.equal(usage.body.audits_used, 0);
    assert.equal(usage.body.audits_remaining, 50);
  });
});

describe('listing audits', () => {
  let account: TestAccount;
  const domains = [
    'https://l1.example.com',
    'https://l2.example.com',
    'https://l3.example.com',
    'https://l4.example.com',
    'http://l5.example.com',
  ];
  const ids: string[] = [];
  before(async () => {
    account = await newAccount('team');
    const { clock } = await getStack();
    for (const domain of domains) {
      const { body } = await trigger(account.testKey, domain);
      ids.push(body.audit_id);
      await waitForAudit(account.testKey, body.audit_id);
      clock.advance(1);
    }
    clock.reset();
  });

  it('pages newest first with a cursor until next_cursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/v1/audits?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await api('GET', query, { key: account.testKey });
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.data.length <= 2);
      for (const item of page.body.data) {
        assert.deepEqual(Object.keys(item).sort(), [
          'audit_id',
          'completed_at',
          'created_at',
          'domain',
          'score',
          'status',
        ]);
        seen.push(item.audit_id);
      }
      assert.equal(page.body.has_more, page.body.next_cursor !== null);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...ids].reverse());
  });

  it('defaults to 50, caps at 200, and names a bad parameter', async () => {
    const all = await api('GET', '/v1/audits', { key: account.testKey });
    assert.equal(all.body.data.length, 5);
    assert.equal(all.body.has_more, false);
    assert.equal(all.body.next_cursor, null);
    const tooMany = await api('GET', '/v1/audits?limit=201', { key: account.testKey });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.error.message, /limit/);
    const badDate = await api('GET', '/v1/audits?completed_after=last-week', { key: account.testKey });
    assert.equal(badDate.status, 400);
    assert.match(badDate.body.error.message, /completed_after/);
    const badCursor = await api('GET', '/v1/audits?cursor=nonsense', { key: account.testKey });
    assert.equal(badCursor.status, 400);
    assert.match(badCursor.body.error.message, /cursor/);
  });

  it('filters by status, domain and completion time', async () => {
    const completed = await api('GET', '/v1/audits?status=completed', { key: account.testKey });
    assert.equal(completed.body.data.length, 5);
    assert.ok(completed.body.data.every((a: { score: number | null }) => Number.isInteger(a.score)));
    assert.equal((await api('GET', '/v1/audits?status=failed', { key: account.testKey })).body.data.length, 0);
    const byHost = await api('GET', '/v1/audits?domain=l2.example.com', { key: account.testKey });
    assert.deepEqual(
      byHost.body.data.map((a: { audit_id: string }) => a.audit_id),
      [ids[1]],
    );
    const byOrigin = await api('GET', `/v1/audits?domain=${encodeURIComponent('http://l5.example.com')}`, {
      key: account.testKey,
    });
    assert.deepEqual(
      byOrigin.body.data.map((a: { audit_id: string }) => a.audit_id),
      [ids[4]],
    );

    const { db } = await getStack();
    const third = await db('audits').where({ id: ids[2] }).first('completed_at');
    const at = new Date(third.completed_at).toISOString();
    const after = await api('GET', `/v1/audits?completed_after=${encodeURIComponent(at)}`, { key: account.testKey });
    const before = await api('GET', `/v1/audits?completed_before=${encodeURIComponent(at)}`, { key: account.testKey });
    assert.ok(!after.body.data.some((a: { audit_id: string }) => a.audit_id === ids[2]));
    assert.ok(!before.body.data.some((a: { audit_id: string }) => a.audit_id === ids[2]));
    assert.equal(after.body.data.length + before.body.data.length, 4);
  });
});
