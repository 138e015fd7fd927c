import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { WorkflowNotFoundError } from '@temporalio/client';
import { attemptDelivery } from '../../src/webhooks/attempt';
import { sendFirstAttempts } from '../../src/webhooks/first-attempts';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';
import { serveSite } from '../support/sites';
import { startReceiver, until } from '../support/receiver';

const HOME =
  '<!doctype html><html lang="en"><head><title>First attempt fixture site</title></head><body><h1>Hi</h1></body></html>';

describe("a delivery's first attempt (made by the audit workflow)", function () {
  this.timeout(60_000);

  it('is signed and delivered once, with no workflow of its own; running the logged attempt again sends nothing', async () => {
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

      // The audit workflow's step running again (its workflow task was lost after the POSTs went out).
      const again = await firstAttemptOf(body.audit_id, {
        deliveryId,
        createdAt: new Date().toISOString(),
        webhookId: created.body.webhook_id,
        url: receiver.url,
      });
      assert.deepEqual(again, { attempts: [], logged: true });
      // And as a later attempt would run it, with the same number.
      const once = await attemptDelivery(await deliveryDeps(), {
        deliveryId,
        attempt: 1,
        trigger: 'automatic',
        nextDelayMs: 60_000,
      });
      assert.deepEqual(once, { delivered: true, stop: false });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.received.length, 1, 'attempt 1 was sent once');
      const attempts = await stack.db('delivery_attempts').where({ delivery_id: deliveryId });
      assert.deepEqual(
        attempts.map((a) => [a.attempt, a.status_code]),
        [[1, 200]],
      );
      // Made in the audit workflow's task (local activities only), with no DeliveryWorkflow behind it.
      const { client } = stack.service.temporal;
      await assert.rejects(client.workflow.getHandle(deliveryId).describe(), WorkflowNotFoundError);
      const history = await client.workflow.getHandle(body.audit_id).fetchHistory();
      const events = history.events ?? [];
      assert.equal(
        events.filter(
          (e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name === 'DeliveryWorkflow',
        ).length,
        0,
      );
      const localActivities = events.flatMap((e) => {
        const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
        return data ? [JSON.parse(Buffer.from(data).toString()).activity_type] : [];
      });
      assert.ok(localActivities.includes('sendFirstAttempts'), localActivities.join(', '));
    } finally {
      await receiver.close();
      await site.close();
    }
  });

  it('sends nothing to a webhook removed between planning and the first attempt, and logs nothing for it', async () => {
    const stack = await getStack();
    const receiver = await startReceiver();
    const site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
    try {
      const account = await newAccount('pro');
      const created = await api('POST', '/v1/webhooks', { key: account.liveKey, body: { url: receiver.url } });
      assert.equal(created.status, 201, created.text);
      const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      assert.equal((await waitForAudit(account.liveKey, body.audit_id)).body.status, 'completed');
      await until(() => receiver.received[0], 15_000, 'the audit.completed delivery');
      const removed = await api('DELETE', `/v1/webhooks/${created.body.webhook_id}`, { key: account.liveKey });
      assert.equal(removed.status, 204, removed.text);

      const planned = {
        deliveryId: 'dlv_removedBeforeItsAttempt01',
        createdAt: new Date().toISOString(),
        webhookId: created.body.webhook_id,
        url: receiver.url,
      };
      const sent = await firstAttemptOf(body.audit_id, planned);
      assert.deepEqual(sent, { attempts: [], logged: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.received.length, 1, 'only the delivery made before the removal');
      assert.equal(await stack.db('deliveries').where({ id: planned.deliveryId }).first(), undefined);
    } finally {
      await receiver.close();
      await site.close();
    }
  });
});

/** The delivery activities' dependencies as the audit worker has them, sending for real (live mode). */
async function deliveryDeps() {
  const stack = await getStack();
  return { db: stack.db, clock: stack.clock, timeoutMs: 1000, allow: stack.config.outboundAllow, testMockUrl: '' };
}

/** The audit workflow's first-attempt step for one planned audit.completed delivery, run directly. */
async function firstAttemptOf(auditId: string, planned: Parameters<typeof sendFirstAttempts>[1]['deliveries'][number]) {
  return sendFirstAttempts(await deliveryDeps(), {
    auditId,
    details: { event: 'audit.completed' },
    deliveries: [planned],
    nextDelayMs: 60_000,
  });
}
