import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { attemptDelivery } from '../../src/webhooks/attempt';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';
import { serveSite } from '../support/sites';
import { startReceiver, until } from '../support/receiver';

const HOME =
  '<!doctype html><html lang="en"><head><title>First attempt fixture site</title></head><body><h1>Hi</h1></body></html>';

describe('a delivery first attempt (local activity)', function () {
  this.timeout(60_000);

  it('is signed and delivered once; running the recorded attempt again sends nothing', async () => {
    const stack = await getStack();
    const site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
    const receiver = await startReceiver();
    try {
      const account = await newAccount('pro');
      const created = await api('POST', '/v1/webhooks', {
        key: account.liveKey,
        body: { url: receiver.url, events: ['audit.completed'] },
      });
      assert.equal(created.status, 201, created.text);
      const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      assert.equal((await waitForAudit(account.liveKey, body.audit_id)).body.status, 'completed');
      const first = await until(() => receiver.received[0], 15_000, 'the first attempt');
      const deliveryId = String(first.headers['webhook-id']);
      assert.equal(first.headers['x-service-attempt'], '1');
      // Verify throws on a bad signature or a stale timestamp.
      new Webhook(created.body.secret).verify(first.body, first.headers as Record<string, string>);
      await until(
        async () => (await stack.db('deliveries').where({ id: deliveryId }).first('state'))?.state === 'delivered',
        15_000,
        'the delivery marked delivered',
      );

      // The workflow's first step running again (its workflow task timed out after the POST went out).
      const again = await attemptDelivery(
        { db: stack.db, clock: stack.clock, timeoutMs: 1000, allow: stack.config.outboundAllow, testMockUrl: '' },
        { deliveryId, attempt: 1, trigger: 'automatic', nextDelayMs: 60_000 },
      );
      assert.deepEqual(again, { delivered: true, stop: false });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.received.length, 1, 'attempt 1 was sent once');
      const attempts = await stack.db('delivery_attempts').where({ delivery_id: deliveryId });
      assert.deepEqual(
        attempts.map((a) => [a.attempt, a.status_code]),
        [[1, 200]],
      );
      // Its workflow made the attempt in its first task: no activity task was scheduled for it.
      const history = await stack.service.temporal.client.workflow.getHandle(deliveryId).fetchHistory();
      assert.equal((history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).length, 0);
    } finally {
      await receiver.close();
      await site.close();
    }
  });
});
