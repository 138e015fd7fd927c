import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { createLiveEngine } from '../../src/audits/live-engine';
import { insertUserRow, addMembership } from '../../src/people/users';
import { startWorker } from '../../processes/audit-worker';
import { type RunningApi } from '../../processes/api-service';
import type { RunningWorker } from '../../temporal/worker';
import { api, getStack, newAccount, startExtraApi, stopExtraApi, waitForAudit, workflowBundle } from '../support/stack';
import { serveSite, type LocalSite } from '../support/sites';
import { startReceiver, until } from '../support/receiver';

const HOME =
  '<!doctype html><html lang="en"><head><title>Auto-disable fixture site</title></head><body><h1>Hi</h1></body></html>';
/** WEBHOOK_DISABLE_AFTER_MS of this test: the owners are warned after 60 % of it (2.4 s). */
const DISABLE_AFTER_MS = 4000;

/**
 * Auto-disable (docs/decisions.md, "Webhook lifecycle") on a worker and API of their own with a short
 * WEBHOOK_DISABLE_AFTER_MS: the failing webhook's owners are e-mailed (the mailer's mail_outbox), it is
 * disabled, another webhook of the workspace receives webhook.disabled, nothing more is sent to it,
 * and PATCH {status: "enabled"} resumes its deliveries.
 */
describe('webhook auto-disable', function () {
  this.timeout(120_000);
  let site: LocalSite;
  let worker: RunningWorker;
  let apiForQueue: RunningApi | undefined;
  let baseUrl: string;

  before(async () => {
    const stack = await getStack();
    site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
    const config = {
      ...stack.config,
      taskQueue: 'audits-webhook-auto-disable-test',
      webhookDisableAfterMs: DISABLE_AFTER_MS,
    };
    worker = await startWorker({
      config,
      db: stack.db,
      clock: stack.clock,
      temporalAddress: stack.temporalAddress,
      engine: createLiveEngine(config),
      workflowBundle: await workflowBundle(),
      testWebhookMockUrl: `${stack.url}/mock/webhooks`,
    });
    apiForQueue = await startExtraApi({ config });
    baseUrl = apiForQueue.url;
  });
  after(async () => {
    await stopExtraApi(apiForQueue);
    await worker?.shutdown();
    await site?.close();
  });

  it('warns the owners, disables the webhook, tells the workspace, sends it nothing more, and resumes once enabled', async () => {
    const { db, clock } = await getStack();
    const account = await newAccount('pro');
    const owner = await insertUserRow(db, {
      email: `owner-${account.workspaceId.toLowerCase()}@example.com`,
      passwordHash: 'not-used',
      now: clock.now(),
    });
    await addMembership(db, { workspaceId: account.workspaceId, userId: owner.id, role: 'owner', now: clock.now() });
    const failing = await startReceiver(() => 500);
    const other = await startReceiver(() => 200);
    const mail = () => db('mail_outbox').where({ to_address: owner.email }).orderBy('id').select('subject', 'body');
    try {
      const create = async (body: object) => {
        const response = await api('POST', '/v1/webhooks', { key: account.liveKey, baseUrl, body });
        assert.equal(response.status, 201, response.text);
        return response.body as { webhook_id: string; secret: string };
      };
      const dead = await create({ url: failing.url, events: ['audit.completed'] });
      const watcher = await create({ url: other.url, events: ['webhook.disabled', 'audit.completed'] });
      const audit = async () => {
        const accepted = await api('POST', '/v1/audits', {
          key: account.liveKey,
          baseUrl,
          body: { domain: site.origin },
        });
        assert.equal(accepted.status, 202, accepted.text);
        await waitForAudit(account.liveKey, accepted.body.audit_id, 30_000);
        return accepted.body.audit_id as string;
      };
      const started = Date.now();
      await audit();
      await until(async () => (await mail()).length >= 1, 30_000, 'the failure notice');
      const warnedAfter = Date.now() - started;
      const [notice] = await mail();
      assert.match(notice.subject, /^Webhook failing since /);
      assert.ok(notice.body.includes(dead.webhook_id) && notice.body.includes(failing.url), notice.body);
      assert.ok(warnedAfter >= DISABLE_AFTER_MS * 0.6 - 500, `warned after ${warnedAfter} ms`);
      const midway = await api('GET', '/v1/webhooks', { key: account.liveKey });
      assert.equal(midway.body.data[0].status, 'enabled');
      assert.ok(midway.body.data[0].failing_since, 'the streak shows');

      const disabledEvent = await until(
        () => other.received.find((r) => r.headers['x-service-event'] === 'webhook.disabled'),
        30_000,
        'webhook.disabled',
      );
      const listed = await api('GET', '/v1/webhooks', { key: account.liveKey });
      const [disabled, still] = listed.body.data;
      assert.equal(disabled.webhook_id, dead.webhook_id);
      assert.deepEqual([disabled.status, disabled.disabled_reason], ['disabled', 'consecutive_failures']);
      assert.ok(Date.parse(disabled.disabled_at) - started >= DISABLE_AFTER_MS - 500, disabled.disabled_at);
      assert.equal(still.status, 'enabled');
      assert.deepEqual(JSON.parse(disabledEvent.body), {
        webhook_id: dead.webhook_id,
        url: failing.url,
        disabled_at: disabled.disabled_at,
        reason: 'consecutive_failures',
      });
      assert.equal(disabledEvent.headers['x-service-audit-id'], undefined);
      new Webhook(watcher.secret).verify(disabledEvent.body, disabledEvent.headers as Record<string, string>);
      await until(async () => (await mail()).length >= 2, 10_000, 'the disabled notice');
      assert.match((await mail())[1].subject, /^Webhook disabled: /);

      // Disabled: the next event goes to the other webhook only, and nothing is redelivered to it.
      const sentToDead = failing.received.length;
      const next = await audit();
      await until(
        () => other.received.find((r) => r.headers['x-service-audit-id'] === next),
        15_000,
        'audit.completed to the enabled webhook',
      );
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(failing.received.length, sentToDead, 'nothing more sent to the disabled webhook');
      const recover = await api('POST', `/v1/webhooks/${dead.webhook_id}/recover`, {
        key: account.liveKey,
        body: { since: new Date(started - 1000).toISOString() },
      });
      assert.equal(recover.status, 409);
      assert.equal(recover.body.error.code, 'webhook_disabled');

      // Enabled again: its deliveries resume, and the failed ones can be recovered.
      failing.setResponder(() => 200);
      const enabled = await api('PATCH', `/v1/webhooks/${dead.webhook_id}`, {
        key: account.liveKey,
        body: { status: 'enabled' },
      });
      assert.equal(enabled.status, 200, enabled.text);
      assert.deepEqual(
        [enabled.body.status, enabled.body.disabled_at, enabled.body.disabled_reason, enabled.body.failing_since],
        ['enabled', null, null, null],
      );
      // The failed delivery (still within its redelivery window) is sent again; none was made while disabled.
      const recovered = await api('POST', `/v1/webhooks/${dead.webhook_id}/recover`, {
        key: account.liveKey,
        body: { since: new Date(started - 1000).toISOString() },
      });
      assert.equal(recovered.status, 202, recovered.text);
      assert.deepEqual(recovered.body, { queued: 1 });
      await until(() => failing.received.length === sentToDead + 1, 15_000, 'the recovered delivery');
      const resumed = await audit();
      await until(
        () => failing.received.find((r) => r.headers['x-service-audit-id'] === resumed),
        15_000,
        'audit.completed to the enabled webhook again',
      );
      assert.equal((await mail()).length, 2, 'no more mail');
    } finally {
      await failing.close();
      await other.close();
    }
  });
});
