import assert from 'node:assert/strict';
import { createAuditClient, verifyWebhook, WebhookVerificationError } from '../../src/client';
import { startReceiver, until } from '../support/receiver';
import { serveSite, type LocalSite } from '../support/sites';
import { getStack, newAccount } from '../support/stack';

const HOME =
  '<!doctype html><html lang="en"><head><title>Typed client fixture site</title></head><body><h1>Hi</h1></body></html>';

describe('typed client (src/client) against the running service', function () {
  this.timeout(60_000);
  let site: LocalSite;
  before(async () => {
    site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  });
  after(() => site.close());

  it('creates a webhook, triggers and fetches an audit, and verifies the delivered audit.completed', async () => {
    const { url } = await getStack();
    const account = await newAccount('pro');
    const client = createAuditClient({ baseUrl: `${url}/v1`, apiKey: account.liveKey });
    const receiver = await startReceiver();
    try {
      const created = await client.POST('/webhooks', { body: { url: receiver.url, events: ['audit.completed'] } });
      assert.equal(created.response.status, 201);
      const secret = created.data!.secret!;

      const trigger = await client.POST('/audits', { body: { domain: site.origin } });
      assert.equal(trigger.response.status, 202, JSON.stringify(trigger.error));
      const auditId = trigger.data!.audit_id;
      assert.equal(trigger.data!.status, 'queued');

      const audit = await until(
        async () => {
          const { data } = await client.GET('/audits/{audit_id}', { params: { path: { audit_id: auditId } } });
          return data && data.status === 'completed' && 'score' in data ? data : undefined;
        },
        30_000,
        'the completed audit',
      );
      assert.equal(audit.audit_id, auditId);
      assert.ok(audit.score >= 0 && audit.score <= 100);

      const request = await until(() => receiver.received[0], 15_000, 'the audit.completed delivery');
      const verified = verifyWebhook({
        secret,
        headers: request.headers as Record<string, string>,
        body: request.body,
      });
      assert.equal(verified.event, 'audit.completed');
      assert.deepEqual(verified.payload, audit, 'the delivered body is the audit the client fetched');
      assert.throws(
        () => verifyWebhook({ secret, headers: request.headers as Record<string, string>, body: `${request.body} ` }),
        WebhookVerificationError,
      );
    } finally {
      await receiver.close();
    }
  });

  it('returns the error envelope, typed, for a bad request and a wrong key', async () => {
    const { url } = await getStack();
    const account = await newAccount('pro');
    const client = createAuditClient({ baseUrl: `${url}/v1/`, apiKey: account.testKey });
    const bad = await client.POST('/audits', { body: { domain: 'not a url' } });
    assert.equal(bad.response.status, 400);
    assert.equal(bad.error?.error.code, 'invalid_domain');
    const anonymous = createAuditClient({ baseUrl: `${url}/v1`, apiKey: 'svc_test_wrong' });
    const refused = await anonymous.GET('/usage');
    assert.equal(refused.response.status, 401);
    assert.equal(refused.error?.error.code, 'invalid_api_key');
  });
});
