import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseList } from 'structured-headers';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '../../src/client';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';
import { serveSite, type LocalSite } from '../support/sites';
import { startReceiver, until, type Received } from '../support/receiver';

const HOME =
  '<!doctype html><html lang="en"><head><title>Webhook lifecycle fixture site</title></head><body><h1>Hi</h1></body></html>';

/** The spec's check (README "Webhooks"): one of the listed `sha256=` signatures is the HMAC of the raw body. */
function specSignatureMatches(secret: string, request: Received): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`);
  return String(request.headers['x-service-signature'])
    .split(',')
    .map((part) => Buffer.from(part.trim()))
    .some((offered) => offered.length === expected.length && timingSafeEqual(offered, expected));
}

/** The published Standard Webhooks library's verification, with a `whsec_` secret. */
function standardVerifies(secret: string, request: Received): boolean {
  try {
    new Webhook(secret.slice('whsec_'.length)).verify(request.body, request.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/** The typed client's verifyWebhook. */
function clientVerifies(secret: string, request: Received): boolean {
  try {
    verifyWebhook({ secret, headers: request.headers, body: request.body });
    return true;
  } catch {
    return false;
  }
}

describe('webhook lifecycle', function () {
  this.timeout(90_000);
  let site: LocalSite;
  before(async () => {
    site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  });
  after(() => site.close());

  async function createWebhook(account: TestAccount, body: object, key = account.liveKey) {
    const response = await api('POST', '/v1/webhooks', { key, body });
    assert.equal(response.status, 201, response.text);
    return response.body as { webhook_id: string; url: string; events: string[]; secret: string };
  }
  async function webhookRow(webhookId: string) {
    return (await getStack()).db('webhooks').where({ id: webhookId }).first();
  }
  async function liveAudit(account: TestAccount): Promise<string> {
    const accepted = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
    assert.equal(accepted.status, 202, accepted.text);
    await waitForAudit(account.liveKey, accepted.body.audit_id, 30_000);
    return accepted.body.audit_id;
  }
  /** Waits (watching the table, not spending the retrieval limit) until the webhook's deliveries are in these states. */
  async function settled(webhookId: string, states: Record<string, number>) {
    const { db } = await getStack();
    await until(
      async () => {
        const rows: Array<{ state: string }> = await db('deliveries').where({ webhook_id: webhookId }).select('state');
        return Object.entries(states).every(([state, n]) => rows.filter((r) => r.state === state).length === n);
      },
      30_000,
      `deliveries ${JSON.stringify(states)}`,
    );
  }

  it('PATCH changes the URL (through the outbound policy) and the events; refused input stores nothing', async () => {
    const account = await newAccount('pro');
    const first = await startReceiver();
    const second = await startReceiver();
    try {
      const webhook = await createWebhook(account, { url: first.url });
      const changed = await api('PATCH', `/v1/webhooks/${webhook.webhook_id}`, {
        key: account.liveKey,
        body: { url: second.url, events: ['audit.failed', 'webhook.disabled'] },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.url, second.url);
      assert.deepEqual(changed.body.events, ['audit.failed', 'webhook.disabled']);
      assert.equal(changed.body.status, 'enabled');
      assert.equal('secret' in changed.body, false);
      const before = await webhookRow(webhook.webhook_id);

      const refusals: Array<[object, RegExp]> = [
        [{ url: 'http://10.1.2.3/hook' }, /field url cannot receive webhooks/],
        [{ url: 'http://169.254.169.254/latest', events: ['audit.completed'] }, /field url cannot receive webhooks/],
        [{ url: 'ftp://example.com/hook' }, /http:\/\/ or https:\/\//],
        [{ events: ['audit.started'] }, /events/],
        [{ events: [] }, /events/],
        [{ status: 'disabled' }, /status/],
        [{ secret: 'a-new-secret-of-my-own' }, /secret/],
        [{}, /body/],
      ];
      for (const [body, message] of refusals) {
        const refused = await api('PATCH', `/v1/webhooks/${webhook.webhook_id}`, { key: account.liveKey, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.equal(refused.body.error.code, 'invalid_request');
        assert.match(refused.body.error.message, message, JSON.stringify(body));
        assert.deepEqual(await webhookRow(webhook.webhook_id), before, `nothing stored for ${JSON.stringify(body)}`);
      }
      // Another workspace's webhook, another environment's, and ids of another shape are not found.
      const other = await newAccount('pro');
      for (const [key, id] of [
        [other.liveKey, webhook.webhook_id],
        [account.testKey, webhook.webhook_id],
        [account.liveKey, 'wh_doesnotexist'],
        [account.liveKey, 'nope'],
      ]) {
        const missing = await api('PATCH', `/v1/webhooks/${id}`, { key, body: { events: ['audit.completed'] } });
        assert.equal(missing.status, 404, id);
        assert.equal(missing.body.error.code, 'webhook_not_found');
      }
      assert.deepEqual(await webhookRow(webhook.webhook_id), before);
      // Free accounts have no webhooks to change.
      const free = await newAccount('free');
      const gated = await api('PATCH', `/v1/webhooks/${webhook.webhook_id}`, {
        key: free.liveKey,
        body: { events: ['audit.completed'] },
      });
      assert.equal(gated.body.error.code, 'tier_required');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('sends one signed webhook.test at once, reports a refusing receiver, logs both and never retries', async () => {
    const account = await newAccount('pro');
    const receiver = await startReceiver();
    try {
      const webhook = await createWebhook(account, { url: receiver.url, events: ['audit.failed'] });
      const sent = await api('POST', `/v1/webhooks/${webhook.webhook_id}/test`, { key: account.liveKey });
      assert.equal(sent.status, 200, sent.text);
      assert.equal(sent.body.delivered, true);
      assert.equal(sent.body.status_code, 200);
      assert.equal(sent.body.error, null);
      assert.ok(Number.isInteger(sent.body.duration_ms));
      assert.equal(receiver.received.length, 1, 'sent before the answer, whatever the webhook subscribes to');
      const [request] = receiver.received;
      const body = JSON.parse(request.body);
      assert.deepEqual(Object.keys(body), ['type', 'webhook_id', 'sent_at']);
      assert.equal(body.type, 'webhook.test');
      assert.equal(body.webhook_id, webhook.webhook_id);
      assert.equal(request.headers['x-service-event'], 'webhook.test');
      assert.equal(request.headers['x-service-delivery'], sent.body.delivery_id);
      assert.equal(request.headers['x-service-audit-id'], undefined);
      assert.ok(specSignatureMatches(webhook.secret, request), 'the spec HMAC');
      assert.ok(standardVerifies(webhook.secret, request), 'the standardwebhooks library');

      receiver.setResponder(() => 503);
      const refused = await api('POST', `/v1/webhooks/${webhook.webhook_id}/test`, { key: account.liveKey });
      assert.equal(refused.status, 200, refused.text);
      assert.deepEqual([refused.body.delivered, refused.body.status_code, refused.body.error], [false, 503, 'non_2xx']);
      // Never retried: the test configuration retries other deliveries within 1.5 s.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.equal(receiver.received.length, 2);
      const log = await api('GET', `/v1/webhooks/${webhook.webhook_id}/deliveries?event=webhook.test`, {
        key: account.liveKey,
      });
      assert.deepEqual(
        log.body.data.map((d: any) => [d.delivery_id, d.event, d.state, d.audit_id, d.attempts.length]),
        [
          [refused.body.delivery_id, 'webhook.test', 'failed', null, 1],
          [sent.body.delivery_id, 'webhook.test', 'delivered', null, 1],
        ],
      );
      assert.deepEqual(
        [log.body.data[0].attempts[0].status_code, log.body.data[0].attempts[0].error_class],
        [503, 'non_2xx'],
      );

      // Test-mode webhooks send it to the mock receiver: the configured URL hears nothing.
      const testWebhook = await createWebhook(account, { url: receiver.url }, account.testKey);
      const mocked = await api('POST', `/v1/webhooks/${testWebhook.webhook_id}/test`, { key: account.testKey });
      assert.equal(mocked.body.delivered, true, mocked.text);
      assert.equal(receiver.received.length, 2);
      // A body, if any, has no fields.
      const extra = await api('POST', `/v1/webhooks/${webhook.webhook_id}/test`, {
        key: account.liveKey,
        body: { event: 'audit.completed' },
      });
      assert.equal(extra.status, 400);
      assert.equal(receiver.received.length, 2);
    } finally {
      await receiver.close();
    }
  });

  it('rotates the secret: during the grace period every delivery carries both signatures, after it only the new one', async () => {
    const account = await newAccount('pro');
    const receiver = await startReceiver();
    try {
      const webhook = await createWebhook(account, { url: receiver.url, events: ['audit.completed'] });
      const old = webhook.secret;
      const rotated = await api('POST', `/v1/webhooks/${webhook.webhook_id}/rotate-secret`, {
        key: account.liveKey,
        body: { grace_seconds: 60 },
      });
      assert.equal(rotated.status, 200, rotated.text);
      const fresh: string = rotated.body.secret;
      assert.match(fresh, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.notEqual(fresh, old);
      assert.equal(rotated.body.webhook_id, webhook.webhook_id);
      const expires = Date.parse(rotated.body.previous_secret_expires_at);
      assert.ok(Math.abs(expires - (Date.now() + 60_000)) < 10_000, rotated.body.previous_secret_expires_at);
      const listed = await api('GET', '/v1/webhooks', { key: account.liveKey });
      assert.ok(!listed.text.includes(fresh), 'the new secret is shown once');
      assert.equal(listed.body.data[0].previous_secret_expires_at, rotated.body.previous_secret_expires_at);

      // An audit's delivery and a test event during the grace period: both secrets verify each, every way.
      const auditId = await liveAudit(account);
      const completed = await until(
        () => receiver.received.find((r) => r.headers['x-service-audit-id'] === auditId),
        15_000,
        'audit.completed',
      );
      await api('POST', `/v1/webhooks/${webhook.webhook_id}/test`, { key: account.liveKey });
      for (const request of [completed, receiver.received[receiver.received.length - 1]]) {
        assert.match(String(request.headers['x-service-signature']), /^sha256=[0-9a-f]{64}, sha256=[0-9a-f]{64}$/);
        assert.match(String(request.headers['webhook-signature']), /^v1,\S+ v1,\S+$/);
        for (const secret of [fresh, old]) {
          assert.ok(specSignatureMatches(secret, request), 'spec HMAC');
          assert.ok(standardVerifies(secret, request), 'standardwebhooks');
          assert.ok(clientVerifies(secret, request), 'typed client');
        }
      }

      // A rotation with a grace period of 2 s: once it is over, only the new secret signs.
      const again = await api('POST', `/v1/webhooks/${webhook.webhook_id}/rotate-secret`, {
        key: account.liveKey,
        body: { grace_seconds: 2 },
      });
      const newest: string = again.body.secret;
      await new Promise((resolve) => setTimeout(resolve, 2100));
      await api('POST', `/v1/webhooks/${webhook.webhook_id}/test`, { key: account.liveKey });
      const after = receiver.received[receiver.received.length - 1];
      assert.match(String(after.headers['x-service-signature']), /^sha256=[0-9a-f]{64}$/);
      assert.ok(
        specSignatureMatches(newest, after) && standardVerifies(newest, after) && clientVerifies(newest, after),
      );
      for (const stale of [fresh, old]) {
        assert.ok(!specSignatureMatches(stale, after), 'spec HMAC');
        assert.ok(!standardVerifies(stale, after), 'standardwebhooks');
        assert.ok(!clientVerifies(stale, after), 'typed client');
      }
      // Without a body: the default grace period of a day. Out of range: refused, nothing changed.
      const byDefault = await api('POST', `/v1/webhooks/${webhook.webhook_id}/rotate-secret`, { key: account.liveKey });
      assert.ok(Math.abs(Date.parse(byDefault.body.previous_secret_expires_at) - (Date.now() + 86_400_000)) < 10_000);
      const stored = await webhookRow(webhook.webhook_id);
      for (const grace_seconds of [-1, 604_801, 1.5]) {
        const refused = await api('POST', `/v1/webhooks/${webhook.webhook_id}/rotate-secret`, {
          key: account.liveKey,
          body: { grace_seconds },
        });
        assert.equal(refused.status, 400, String(grace_seconds));
        assert.match(refused.body.error.message, /grace_seconds/);
      }
      assert.deepEqual(await webhookRow(webhook.webhook_id), stored);
    } finally {
      await receiver.close();
    }
  });

  it('filters the delivery log by status, event and time, and recovers exactly the failed deliveries with their ids', async () => {
    const account = await newAccount('pro');
    const receiver = await startReceiver(() => 500);
    try {
      const webhook = await createWebhook(account, { url: receiver.url, events: ['audit.completed'] });
      const log = (query: string) =>
        api('GET', `/v1/webhooks/${webhook.webhook_id}/deliveries${query}`, { key: account.liveKey });
      await liveAudit(account);
      await liveAudit(account);
      await settled(webhook.webhook_id, { failed: 2 });
      const failedIds = new Set(receiver.received.map((r) => String(r.headers['x-service-delivery'])));
      assert.equal(failedIds.size, 2);
      const between = new Date().toISOString();
      receiver.setResponder(() => 200);
      await liveAudit(account);
      await settled(webhook.webhook_id, { failed: 2, delivered: 1 });

      const failed = await log('?status=failed');
      assert.deepEqual(new Set(failed.body.data.map((d: any) => d.delivery_id)), failedIds);
      assert.equal((await log('?status=delivered')).body.data.length, 1);
      assert.equal((await log('?status=pending')).body.data.length, 0);
      assert.equal((await log('?event=audit.completed')).body.data.length, 3);
      assert.equal((await log('?event=audit.failed')).body.data.length, 0);
      const since = await log(`?since=${encodeURIComponent(between)}`);
      assert.deepEqual(
        since.body.data.map((d: any) => d.state),
        ['delivered'],
      );
      const paged = await log('?status=failed&limit=1');
      assert.equal(paged.body.has_more, true);
      const next = await log(`?status=failed&limit=1&cursor=${paged.body.next_cursor}`);
      assert.equal(next.body.has_more, false);
      assert.notEqual(next.body.data[0].delivery_id, paged.body.data[0].delivery_id);
      for (const bad of ['?status=lost', '?event=audit.started', '?since=yesterday', '?since=2026-13-01T00:00:00Z']) {
        const refused = await log(bad);
        assert.equal(refused.status, 400, bad);
        assert.equal(refused.body.error.code, 'invalid_request');
      }

      const received = receiver.received.length;
      const recovered = await api('POST', `/v1/webhooks/${webhook.webhook_id}/recover`, {
        key: account.liveKey,
        body: { since: new Date(Date.now() - 3600_000).toISOString() },
      });
      assert.equal(recovered.status, 202, recovered.text);
      assert.deepEqual(recovered.body, { queued: 2 });
      await settled(webhook.webhook_id, { delivered: 3 });
      const resent = receiver.received.slice(received);
      assert.equal(resent.length, 2, 'only the failed deliveries, once each');
      assert.deepEqual(new Set(resent.map((r) => String(r.headers['x-service-delivery']))), failedIds);
      assert.ok(resent.every((r) => r.headers['x-service-attempt'] === '7'));
      for (const delivery of (await log('')).body.data.filter((d: any) => failedIds.has(d.delivery_id))) {
        assert.deepEqual(delivery.attempts.at(-1).trigger, 'manual');
        assert.equal(delivery.state, 'delivered');
      }
      // Nothing failed any more; a `since` older than the 7-day window reaches back only as far as it.
      const none = await api('POST', `/v1/webhooks/${webhook.webhook_id}/recover`, {
        key: account.liveKey,
        body: { since: '2020-01-01T00:00:00Z' },
      });
      assert.deepEqual(none.body, { queued: 0 });
      const missing = await api('POST', `/v1/webhooks/${webhook.webhook_id}/recover`, {
        key: account.liveKey,
        body: {},
      });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error.message, /since/);
    } finally {
      await receiver.close();
    }
  });

  it('answers every response with the IETF RateLimit-Policy and RateLimit fields beside X-RateLimit-*', async () => {
    const account = await newAccount('pro');
    // Each field a Structured Field List of String items with Integer parameters.
    const list = (value: string | null) =>
      new Map(
        parseList(value ?? '').map(([name, params]) => {
          assert.equal(typeof name, 'string');
          for (const param of params.values()) assert.ok(Number.isInteger(param), String(param));
          return [name as string, Object.fromEntries(params) as Record<string, number>];
        }),
      );
    const fields = (headers: Headers) => ({
      policy: list(headers.get('ratelimit-policy')),
      limits: list(headers.get('ratelimit')),
    });

    const first = await api('GET', '/v1/usage', { key: account.liveKey });
    const second = await api('GET', '/v1/webhooks', { key: account.liveKey });
    for (const response of [first, second]) {
      const { policy } = fields(response.headers);
      assert.deepEqual(policy.get('quota')!.q, 50);
      assert.ok([28, 29, 30, 31].includes(policy.get('quota')!.w / 86_400), 'a calendar month');
      assert.deepEqual(policy.get('burst'), { q: 10, w: 60 });
      assert.deepEqual(policy.get('retrieval'), { q: 100, w: 60 });
    }
    const { limits } = fields(first.headers);
    assert.equal(limits.get('quota')!.r, Number(first.headers.get('x-ratelimit-remaining')));
    const toReset = Number(first.headers.get('x-ratelimit-reset')) - Date.now() / 1000;
    assert.ok(Math.abs(limits.get('quota')!.t - toReset) < 5);
    assert.equal(limits.get('retrieval')!.r, 99);
    assert.ok(limits.get('retrieval')!.t > 0 && limits.get('retrieval')!.t <= 60);
    assert.equal(fields(second.headers).limits.get('retrieval')!.r, 98, 'each request counts in the window');

    // A live trigger counts in the burst window instead.
    const trigger = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
    assert.equal(trigger.status, 202, trigger.text);
    const afterTrigger = fields(trigger.headers).limits;
    assert.deepEqual(afterTrigger.get('burst')!.r, 9);
    assert.ok(afterTrigger.get('burst')!.t > 0 && afterTrigger.get('burst')!.t <= 60);
    assert.equal(afterTrigger.has('retrieval'), false);
    assert.equal(afterTrigger.get('quota')!.r, Number(trigger.headers.get('x-ratelimit-remaining')));

    // Test keys have neither window; errors and unauthenticated answers carry the fields too.
    const test = fields((await api('GET', '/v1/usage', { key: account.testKey })).headers);
    assert.deepEqual([...test.policy.keys()], ['quota']);
    assert.deepEqual([...test.limits.keys()], ['quota']);
    const anonymous = await api('GET', '/v1/usage');
    assert.equal(anonymous.status, 401);
    assert.equal(fields(anonymous.headers).policy.get('quota')!.q, 5, "the free tier's values");
    const missing = await api('GET', '/v1/audits/aud_doesnotexist', { key: account.liveKey });
    assert.equal(missing.status, 404);
    assert.ok(fields(missing.headers).limits.has('retrieval'));
    await waitForAudit(account.liveKey, trigger.body.audit_id, 30_000);
  });
});
