import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { deliverySettings } from '../../src/config';
import { ensureTemporalCli } from '../../src/setup/temporal-cli';
import { TemporalDeliveryControl } from '../../temporal/delivery-control';
import { redeliverSignal } from '../../workflows/contracts';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';
import { closedPort, serveSite, type LocalSite } from '../support/sites';
import { startReceiver, until, type Received } from '../support/receiver';

const HOME =
  '<!doctype html><html lang="en"><head><title>Webhook fixture site for audits</title></head><body><h1>Hi</h1></body></html>';

/** The receiver side of the webhook signature (README: Webhooks): HMAC-SHA256 of the raw body, compared in constant time. */
function verifySpecSignature(secret: string, request: Received): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`);
  const actual = Buffer.from(String(request.headers['x-service-signature']));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** What an operator runs: `temporal workflow signal --workflow-id <delivery_id> --name redeliver`. */
async function redeliverFromCli(deliveryId: string): Promise<void> {
  const cli = await ensureTemporalCli(() => undefined);
  await promisify(execFile)(cli, [
    'workflow',
    'signal',
    '--workflow-id',
    deliveryId,
    '--name',
    redeliverSignal.name,
    '--address',
    (await getStack()).temporalAddress,
  ]);
}

describe('webhooks', function () {
  // Generous: a test here runs a live audit and then several retried deliveries; under a loaded machine
  // (two test shards on two cores) the whole took longer than a minute. Waits end as soon as they hold.
  this.timeout(180_000);
  let site: LocalSite;
  before(async () => {
    site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  });
  after(() => site.close());

  async function createWebhook(account: TestAccount, body: object, key = account.liveKey) {
    const response = await api('POST', '/v1/webhooks', { key, body });
    assert.equal(response.status, 201, response.text);
    return response.body as { webhook_id: string; url: string; events: string[]; secret: string; created_at: string };
  }
  /** Waits (watching the table, not spending the retrieval limit) until the newest delivery is in `state`. */
  async function settledDeliveries(
    account: TestAccount,
    webhookId: string,
    state: string,
    key = account.liveKey,
    timeoutMs = 60_000,
  ) {
    const { db } = await getStack();
    await until(
      async () => {
        const newest = await db('deliveries')
          .where({ webhook_id: webhookId })
          .orderBy('created_at', 'desc')
          .first('state', 'next_attempt_at');
        return newest?.state === state;
      },
      timeoutMs,
      `a ${state} delivery`,
    );
    return deliveriesOf(account, webhookId, key);
  }
  async function deliveriesOf(account: TestAccount, webhookId: string, key = account.liveKey) {
    const response = await api('GET', `/v1/webhooks/${webhookId}/deliveries`, { key });
    assert.equal(response.status, 200, response.text);
    return response.body.data as Array<{
      delivery_id: string;
      event: string;
      state: string;
      attempts: Array<Record<string, any>>;
    }>;
  }

  it('are created with a secret shown once, listed without it, and removed', async () => {
    const account = await newAccount('pro');
    const receiver = await startReceiver();
    try {
      const created = await createWebhook(account, { url: receiver.url });
      assert.match(created.webhook_id, /^wh_/);
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(created.events, ['audit.completed', 'audit.failed', 'audit.retried']);
      const custom = await createWebhook(account, {
        url: receiver.url,
        events: ['audit.failed'],
        secret: 'a-customer-chosen-secret',
      });
      assert.equal(custom.secret, 'a-customer-chosen-secret');
      const listed = await api('GET', '/v1/webhooks', { key: account.liveKey });
      assert.deepEqual(
        listed.body.data.map((w: { webhook_id: string }) => w.webhook_id),
        [created.webhook_id, custom.webhook_id],
      );
      assert.ok(!listed.text.includes(created.secret) && !listed.text.includes('"secret"'));
      assert.equal(
        (await api('GET', '/v1/webhooks', { key: account.testKey })).body.data.length,
        0,
        'test keys see only test webhooks',
      );
      assert.equal((await api('DELETE', `/v1/webhooks/${custom.webhook_id}`, { key: account.liveKey })).status, 204);
      const again = await api('DELETE', `/v1/webhooks/${custom.webhook_id}`, { key: account.liveKey });
      assert.equal(again.status, 404);
      assert.equal(again.body.error.code, 'webhook_not_found');
      assert.equal((await api('GET', '/v1/webhooks', { key: account.liveKey })).body.data.length, 1);
    } finally {
      await receiver.close();
    }
  });

  it('refuse URLs the outbound policy blocks, non-http schemes and bad events', async () => {
    const account = await newAccount('team');
    const cases: Array<[object, RegExp]> = [
      [{ url: 'http://169.254.169.254/latest' }, /field url cannot receive webhooks/],
      [{ url: 'http://10.1.2.3/hook' }, /field url cannot receive webhooks/],
      [{ url: 'ftp://example.com/hook' }, /http:\/\/ or https:\/\//],
      [{ url: 'not a url' }, /absolute/],
      [{ url: 'https://example.com', events: ['audit.started'] }, /events/],
      [{ url: 'https://example.com', secret: 'short' }, /secret/],
    ];
    for (const [body, message] of cases) {
      const response = await api('POST', '/v1/webhooks', { key: account.liveKey, body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.body.error.code, 'invalid_request');
      assert.match(response.body.error.message, message);
    }
    const override = await api('POST', '/v1/audits', {
      key: account.liveKey,
      body: { domain: site.origin, webhook_url: 'http://10.9.9.9/x' },
    });
    assert.equal(override.status, 400);
    assert.match(override.body.error.message, /webhook_url/);
    const free = await newAccount('free');
    const gated = await api('POST', '/v1/audits', {
      key: free.liveKey,
      body: { domain: site.origin, webhook_url: 'https://example.com/x' },
    });
    assert.equal(gated.status, 403);
    assert.equal(gated.body.error.code, 'tier_required');
    assert.equal(
      (await (await getStack()).db('webhooks').where({ workspace_id: account.workspaceId })).length,
      0,
      'nothing stored',
    );
  });

  it('POST audit.completed with the stored audit bytes, signed per the spec and Standard Webhooks', async () => {
    const account = await newAccount('pro');
    const receiver = await startReceiver();
    try {
      const webhook = await createWebhook(account, { url: receiver.url });
      const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      const audit = await waitForAudit(account.liveKey, body.audit_id);
      const request = await until(
        () => receiver.received.find((r) => r.headers['x-service-event'] === 'audit.completed'),
        15_000,
        'audit.completed',
      );
      assert.equal(request.body, audit.text, 'byte-identical to GET /audits/{id}');
      assert.ok(verifySpecSignature(webhook.secret, request));
      assert.deepEqual(
        new Webhook(webhook.secret).verify(request.body, request.headers as Record<string, string>),
        JSON.parse(audit.text),
      );
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['x-service-audit-id'], body.audit_id);
      assert.match(String(request.headers['x-service-delivery']), /^dlv_/);
      assert.equal(request.headers['webhook-id'], request.headers['x-service-delivery']);
      assert.equal(request.headers['x-service-attempt'], '1');
      assert.ok(Math.abs(Number(request.headers['x-service-timestamp']) - Date.now() / 1000) < 30);
      const [delivery] = await settledDeliveries(account, webhook.webhook_id, 'delivered');
      assert.equal(delivery.delivery_id, request.headers['x-service-delivery']);
      assert.equal(delivery.attempts[0].status_code, 200);
      assert.equal(delivery.attempts[0].trigger, 'automatic');
    } finally {
      await receiver.close();
    }
  });

  it('retry a failing receiver 1 + 5 times with one delivery id and growing gaps, then mark it failed; the audit is unaffected; manual redelivery through the API and the Temporal CLI', async () => {
    const account = await newAccount('pro');
    const receiver = await startReceiver(() => 500);
    try {
      const webhook = await createWebhook(account, { url: receiver.url, events: ['audit.completed'] });
      const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      const [delivery] = await settledDeliveries(account, webhook.webhook_id, 'failed');
      assert.equal(receiver.received.length, 6);
      assert.equal(new Set(receiver.received.map((r) => r.headers['x-service-delivery'])).size, 1);
      assert.deepEqual(
        receiver.received.map((r) => r.headers['x-service-attempt']),
        ['1', '2', '3', '4', '5', '6'],
      );
      const gaps = receiver.received.slice(1).map((r, i) => r.at - receiver.received[i].at);
      gaps.forEach((gap, i) => assert.ok(gap >= [100, 200, 300, 400, 500][i] - 5, `gap ${i} was ${gap} ms`));
      // Each attempt is signed afresh and still verifies.
      for (const request of receiver.received) assert.ok(verifySpecSignature(webhook.secret, request));
      assert.deepEqual(
        delivery.attempts.map((a) => [a.attempt, a.trigger, a.status_code, a.error_class]),
        [1, 2, 3, 4, 5, 6].map((n) => [n, 'automatic', 500, 'non_2xx']),
      );
      assert.match(String(delivery.attempts[0].response_excerpt), /answered 500/, JSON.stringify(delivery.attempts[0]));
      // The log schedules each retry after the configured, growing delay.
      const scheduled = delivery.attempts
        .slice(0, 5)
        .map((a) => Date.parse(a.next_attempt_at) - Date.parse(a.started_at) - a.duration_ms);
      assert.deepEqual(scheduled, [100, 200, 300, 400, 500]);
      assert.equal(delivery.attempts[5].next_attempt_at, null);
      assert.equal(
        (await api('GET', `/v1/audits/${body.audit_id}`, { key: account.liveKey })).body.status,
        'completed',
      );

      receiver.setResponder(() => 204);
      const retry = await api('POST', `/v1/webhooks/${webhook.webhook_id}/deliveries/${delivery.delivery_id}/retry`, {
        key: account.liveKey,
      });
      assert.equal(retry.status, 202, retry.text);
      await settledDeliveries(account, webhook.webhook_id, 'delivered');
      assert.equal(receiver.received[6].headers['x-service-attempt'], '7');

      await redeliverFromCli(delivery.delivery_id);
      await until(() => receiver.received.length === 8, 30_000, 'redelivery from the CLI');
      const log = (await deliveriesOf(account, webhook.webhook_id))[0];
      assert.deepEqual(
        log.attempts.slice(6).map((a) => [a.attempt, a.trigger, a.status_code]),
        [
          [7, 'manual', 204],
          [8, 'manual', 204],
        ],
      );
    } finally {
      await receiver.close();
    }
  });

  it('redeliver by hand a delivery acknowledged at once: concurrent requests start one workflow for it, the Temporal CLI signals it after', async () => {
    const stack = await getStack();
    const { client } = stack.service.temporal;
    const account = await newAccount('pro');
    const receiver = await startReceiver(() => 200);
    try {
      const webhook = await createWebhook(account, { url: receiver.url, events: ['audit.completed'] });
      await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      const [delivery] = await settledDeliveries(account, webhook.webhook_id, 'delivered');
      assert.deepEqual(
        delivery.attempts.map((a) => [a.attempt, a.trigger, a.status_code]),
        [[1, 'automatic', 200]],
      );
      // Acknowledged in the audit's own workflow task: no workflow of its own yet.
      await assert.rejects(client.workflow.getHandle(delivery.delivery_id).describe(), WorkflowNotFoundError);

      const retryPath = `/v1/webhooks/${webhook.webhook_id}/deliveries/${delivery.delivery_id}/retry`;
      const retries = await Promise.all([1, 2, 3].map(() => api('POST', retryPath, { key: account.liveKey })));
      assert.deepEqual(
        retries.map((r) => r.status),
        [202, 202, 202],
        retries.map((r) => r.text).join(' | '),
      );
      // Requests that reach the workflow before it attempts are served by one attempt.
      await until(() => receiver.received.length >= 2, 15_000, 'a manual attempt');
      const described = await client.workflow.getHandle(delivery.delivery_id).describe();
      assert.equal(described.type, 'DeliveryWorkflow');
      assert.equal(described.status.name, 'RUNNING', 'waiting out the redelivery window');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const manual = receiver.received.length - 1;
      assert.ok(manual >= 1 && manual <= 3, `${manual} manual attempts for 3 requests`);

      await redeliverFromCli(delivery.delivery_id);
      const total = manual + 2;
      await until(() => receiver.received.length === total, 30_000, 'redelivery from the CLI');
      assert.deepEqual(
        receiver.received.map((r) => [r.headers['x-service-delivery'], r.headers['x-service-attempt']]),
        Array.from({ length: total }, (_, i) => [delivery.delivery_id, String(i + 1)]),
      );
      for (const request of receiver.received) assert.ok(verifySpecSignature(webhook.secret, request));
      const log = await until(
        async () => {
          const [row] = await deliveriesOf(account, webhook.webhook_id);
          return row.attempts.length === total && row;
        },
        15_000,
        'every attempt logged',
      );
      assert.deepEqual(
        log.attempts.map((a) => [a.attempt, a.trigger]),
        Array.from({ length: total }, (_, i) => [i + 1, i === 0 ? 'automatic' : 'manual']),
      );
      assert.equal(log.state, 'delivered');
    } finally {
      await receiver.close();
    }
  });

  it('retry a receiver slower than the time-out', async () => {
    const account = await newAccount('pro');
    const receiver = await startReceiver(async (_request, index) => {
      if (index === 0) await new Promise((resolve) => setTimeout(resolve, 1500));
      return 200;
    });
    try {
      const webhook = await createWebhook(account, { url: receiver.url, events: ['audit.completed'] });
      await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      const [delivery] = await settledDeliveries(account, webhook.webhook_id, 'delivered');
      assert.deepEqual(
        delivery.attempts.map((a) => [a.attempt, a.error_class]),
        [
          [1, 'timeout'],
          [2, null],
        ],
      );
      assert.ok(delivery.attempts[0].duration_ms >= 1000);
    } finally {
      await receiver.close();
    }
  });

  it('refuse manual redelivery after the window with 409 redelivery_window_expired', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    const receiver = await startReceiver(() => 500);
    try {
      const webhook = await createWebhook(account, { url: receiver.url, events: ['audit.completed'] });
      // The event happens (by the service clock) 19.5 s before now: its 20 s window closes right after the schedule.
      stack.clock.set(new Date(Date.now() - 19_500));
      const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      await waitForAudit(account.liveKey, body.audit_id);
      stack.clock.reset();
      const [delivery] = await settledDeliveries(account, webhook.webhook_id, 'failed');
      const result = await stack.service.temporal.client.workflow.getHandle(delivery.delivery_id).result();
      assert.deepEqual(result, { delivered: false, attempts: 6 });
      const late = await api('POST', `/v1/webhooks/${webhook.webhook_id}/deliveries/${delivery.delivery_id}/retry`, {
        key: account.liveKey,
      });
      assert.equal(late.status, 409);
      assert.equal(late.body.error.code, 'redelivery_window_expired');
      // Past the route's own clock check, the workflow that ran its course is not started again.
      const control = new TemporalDeliveryControl(
        stack.service.temporal.client,
        stack.config.taskQueue,
        deliverySettings(stack.config),
      );
      const again = {
        deliveryId: delivery.delivery_id,
        eventAt: new Date(),
        domain: site.origin,
        workspaceId: account.workspaceId,
        mode: 'live' as const,
      };
      assert.equal(await control.redeliver(again), 'closed');
      assert.equal(receiver.received.length, 6, 'nothing more was sent');
      const missing = await api('POST', `/v1/webhooks/${webhook.webhook_id}/deliveries/dlv_nope/retry`, {
        key: account.liveKey,
      });
      assert.equal(missing.body.error.code, 'delivery_not_found');
    } finally {
      stack.clock.reset();
      await receiver.close();
    }
  });

  it('stop POSTing to a removed webhook, and send to the trigger override URL instead of the default', async () => {
    const account = await newAccount('pro');
    const primary = await startReceiver();
    const override = await startReceiver();
    try {
      const webhook = await createWebhook(account, { url: primary.url, events: ['audit.completed'] });
      const overridden = await api('POST', '/v1/audits', {
        key: account.liveKey,
        body: { domain: site.origin, webhook_url: override.url },
      });
      await until(() => override.received.length === 1, 15_000, 'override delivery');
      assert.equal(primary.received.length, 0);
      assert.equal(override.received[0].headers['x-service-audit-id'], overridden.body.audit_id);
      assert.ok(verifySpecSignature(webhook.secret, override.received[0]));

      assert.equal((await api('DELETE', `/v1/webhooks/${webhook.webhook_id}`, { key: account.liveKey })).status, 204);
      const later = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      await waitForAudit(account.liveKey, later.body.audit_id);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(primary.received.length, 0);
      assert.equal(override.received.length, 1);
    } finally {
      await primary.close();
      await override.close();
    }
  });

  it('emit audit.retried for each automatic retry and audit.failed at the end, with the documented bodies', async () => {
    const account = await newAccount('pro');
    const receiver = await startReceiver();
    try {
      await createWebhook(account, { url: receiver.url });
      const origin = `http://127.0.0.1:${await closedPort()}`;
      const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: origin } });
      await until(
        () => receiver.received.some((r) => r.headers['x-service-event'] === 'audit.failed'),
        30_000,
        'audit.failed',
      );
      const events = receiver.received.map((r) => [r.headers['x-service-event'], JSON.parse(r.body)] as const);
      const retried = events.filter(([event]) => event === 'audit.retried').map(([, b]) => b);
      assert.deepEqual(retried.map((b) => b.attempt).sort(), [1, 2, 3]);
      for (const b of retried) {
        assert.deepEqual(Object.keys(b).sort(), [
          'attempt',
          'audit_id',
          'domain',
          'error',
          'max_retries',
          'next_attempt_at',
        ]);
        assert.equal(b.audit_id, body.audit_id);
        assert.equal(b.max_retries, 3);
        assert.equal(b.error.code, 'domain_unreachable');
      }
      const failed = events.find(([event]) => event === 'audit.failed')![1];
      assert.deepEqual(Object.keys(failed).sort(), ['attempts', 'audit_id', 'domain', 'error', 'failed_at']);
      assert.equal(failed.attempts, 4);
      assert.equal(failed.error.code, 'domain_unreachable');
    } finally {
      await receiver.close();
    }
  });

  it('in test mode go to the mock receiver, are logged, and never reach the customer URL', async () => {
    const account = await newAccount('pro');
    const customer = await startReceiver();
    try {
      const webhook = await createWebhook(account, { url: customer.url }, account.testKey);
      const { body } = await api('POST', '/v1/audits', {
        key: account.testKey,
        body: { domain: 'https://hooks-test.example.com' },
      });
      await waitForAudit(account.testKey, body.audit_id);
      const [delivery] = await settledDeliveries(account, webhook.webhook_id, 'delivered', account.testKey);
      assert.equal(delivery.event, 'audit.completed');
      assert.deepEqual(
        delivery.attempts.map((a) => [a.attempt, a.status_code]),
        [[1, 200]],
      );
      assert.equal(customer.received.length, 0);
    } finally {
      await customer.close();
    }
  });
});
