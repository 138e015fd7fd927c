import assert from 'node:assert/strict';
import { api, getStack, newAccount, startExtraApi, type ApiResponse } from '../support/stack';

function assertEnvelope(response: ApiResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.error.code, code);
  assert.equal(typeof response.body.error.message, 'string');
  if (message) assert.match(response.body.error.message, message);
  assert.match(response.body.error.request_id, /^req_[0-9A-Za-z]{20}$/);
  assert.equal(response.body.error.request_id, response.headers.get('x-request-id'));
  assert.match(response.body.error.docs_url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/docs/errors#${code}$`));
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    assert.ok(response.headers.get(header), `${header} missing on ${status}`);
  }
}

async function auditCount(workspaceId: string): Promise<number> {
  const { db } = await getStack();
  const [{ count }] = await db('audits').where({ workspace_id: workspaceId }).count<{ count: string }[]>('id as count');
  return Number(count);
}

describe('API edges: authentication, errors, envelope and headers', () => {
  it('rejects a missing, malformed, unknown or revoked key with 401 invalid_api_key', async () => {
    const account = await newAccount('pro');
    assertEnvelope(await api('GET', '/v1/audits'), 401, 'invalid_api_key', /missing Authorization/);
    assertEnvelope(await api('GET', '/v1/audits', { headers: { Authorization: 'Basic abc' } }), 401, 'invalid_api_key');
    assertEnvelope(await api('GET', '/v1/audits', { key: 'svc_live_short' }), 401, 'invalid_api_key');
    assertEnvelope(await api('GET', '/v1/audits', { key: `svc_live_${'A'.repeat(32)}` }), 401, 'invalid_api_key');
    const { db } = await getStack();
    await db('api_keys').where({ id: account.liveKeyId }).update({ revoked_at: new Date() });
    // A fresh authenticator (another instance) sees the revocation at once.
    const other = await startExtraApi();
    assertEnvelope(await api('GET', '/v1/audits', { key: account.liveKey, baseUrl: other.url }), 401, 'invalid_api_key');
    assert.equal((await api('GET', '/v1/audits', { key: account.testKey, baseUrl: other.url })).status, 200);
  });

  it('gives unauthenticated responses the free tier rate-limit headers', async () => {
    const response = await api('GET', '/v1/usage');
    assert.equal(response.headers.get('x-ratelimit-limit'), '5');
    assert.equal(response.headers.get('x-ratelimit-remaining'), '5');
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
    assert.equal(response.headers.get('x-ratelimit-reset'), String(nextMonth));
  });

  it('answers unknown routes with 404 not_found and wrong methods with 405 and Allow', async () => {
    const { testKey } = await newAccount('pro');
    assertEnvelope(await api('GET', '/v1/nothing-here', { key: testKey }), 404, 'not_found');
    assertEnvelope(await api('GET', '/elsewhere'), 404, 'not_found');
    const wrong = await api('DELETE', '/v1/audits', { key: testKey });
    assertEnvelope(wrong, 405, 'method_not_allowed');
    assert.match(wrong.headers.get('allow') ?? '', /POST/);
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
  });

  it('accepts JSON only, within 64 KiB, and stores nothing on bad input', async () => {
    const { testKey, workspaceId } = await newAccount('pro');
    const plain = await api('POST', '/v1/audits', { key: testKey, rawBody: 'domain=https://a.com', headers: { 'Content-Type': 'text/plain' } });
    assertEnvelope(plain, 415, 'invalid_request', /Content-Type must be application\/json/);
    assertEnvelope(await api('POST', '/v1/audits', { key: testKey, rawBody: '{"domain": ', headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_request', /not valid JSON/);
    const huge = { domain: 'https://example.com', webhook_url: `https://hooks.example.com/${'x'.repeat(70 * 1024)}` };
    assertEnvelope(await api('POST', '/v1/audits', { key: testKey, body: huge }), 413, 'payload_too_large');
    assertEnvelope(await api('POST', '/v1/audits', { key: testKey, body: {} }), 400, 'invalid_request', /domain is required/);
    assertEnvelope(await api('POST', '/v1/audits', { key: testKey, body: { domain: 'https://a.com', extra: 1 } }), 400, 'invalid_request', /extra is not allowed/);
    assertEnvelope(await api('POST', '/v1/audits', { key: testKey, body: { domain: 'example.com' } }), 400, 'invalid_domain', /missing a protocol/);
    assertEnvelope(await api('POST', '/v1/audits', { key: testKey, body: { domain: 'https://example.com/path' } }), 400, 'invalid_domain', /path/);
    assert.equal(await auditCount(workspaceId), 0);
  });

  it('refuses a trigger tier above the account tier with tier_required naming the tier', async () => {
    const { testKey, liveKey, workspaceId } = await newAccount('pro');
    assertEnvelope(await api('POST', '/v1/audits', { key: testKey, body: { domain: 'https://a.example.com', tier: 'team' } }), 403, 'tier_required', /requires the team tier/);
    assertEnvelope(await api('POST', '/v1/audits', { key: liveKey, body: { domain: 'https://a.example.com', tier: 'enterprise' } }), 403, 'tier_required', /enterprise/);
    assert.equal(await auditCount(workspaceId), 0);
  });

  it('gates webhooks and PDF reports to pro and up', async () => {
    const free = await newAccount('free');
    assertEnvelope(await api('POST', '/v1/webhooks', { key: free.testKey, body: { url: 'https://hooks.example.com' } }), 403, 'tier_required', /pro tier/);
    assertEnvelope(await api('GET', '/v1/webhooks', { key: free.liveKey }), 403, 'tier_required', /pro tier/);
    assertEnvelope(await api('GET', '/v1/audits/aud_x/pdf', { key: free.liveKey }), 403, 'tier_required', /pro tier/);
    const pro = await newAccount('pro');
    assert.equal((await api('GET', '/v1/webhooks', { key: pro.liveKey })).status, 200);
    assertEnvelope(await api('GET', '/v1/audits/aud_x/pdf', { key: pro.liveKey }), 404, 'audit_not_found');
  });

  it('publishes health, readiness, the OpenAPI document and the error reference', async () => {
    assert.equal((await api('GET', '/healthz')).status, 200);
    const ready = await api('GET', '/v1/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body.checks, { api: true, worker: true, temporal: true, database: true });
    const openapi = await api('GET', '/v1/openapi.json');
    assert.equal(openapi.body.openapi, '3.1.0');
    assert.ok(openapi.body.paths['/audits'].post);
    assert.ok(openapi.body.paths['/audits/{audit_id}/pdf'].get.responses['202']);
    assert.deepEqual(openapi.body.paths['/reports/{audit_id}.pdf'].get.security, []);
    assert.deepEqual(Object.keys(openapi.body.paths['/branding']).sort(), ['delete', 'get', 'put']);
    assert.equal(openapi.body.components.schemas.PutBrandingRequest.properties.primary_color.pattern, '^#[0-9a-fA-F]{6}$');
    assert.equal(openapi.body.components.schemas.Audit.properties.version.const, 'v1');
    const docs = await api('GET', '/docs/errors');
    for (const code of ['invalid_domain', 'tier_required', 'audit_quota_exceeded', 'method_not_allowed', 'invalid_signature', 'link_expired']) {
      assert.match(docs.text, new RegExp(`id="${code}"`));
    }
  });
});
