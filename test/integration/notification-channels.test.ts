import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLiveEngine } from '../../src/audits/live-engine';
import { planNotifications } from '../../src/notifications/planning';
import { startWorker } from '../../processes/audit-worker';
import { type RunningApi } from '../../processes/api-service';
import type { RunningWorker } from '../../temporal/worker';
import { NotificationWorkflow } from '../../workflows';
import { notificationWorkflowId, type NotificationOccasion } from '../../workflows/contracts';
import { assertEnvelope } from '../support/envelope';
import { until } from '../support/receiver';
import { seedCompletedAudit } from '../support/site-audits';
import { serveSite, type LocalSite } from '../support/sites';
import {
  api,
  getStack,
  newAccount,
  startExtraApi,
  stopExtraApi,
  waitForAudit,
  workflowBundle,
  type TestAccount,
} from '../support/stack';

/** Every automatic attempt of the test settings (DELIVERY_RETRY_DELAYS_MS 100…500) is over after this. */
const SCHEDULE_OVER_MS = 2_500;
const TASK_QUEUE = 'audits-notification-channels-test';

interface Received {
  body: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

/** A Slack or Teams stand-in on 127.0.0.1: records each POST and answers what `respond` says for it. */
async function chatReceiver(respond: (index: number) => { status: number; headers?: Record<string, string> }) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() });
      const { status, headers } = respond(received.length - 1);
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'no_service');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T0/B0/secret`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ok = () => ({ status: 200 });

/**
 * Notification channels (docs/decisions.md, "Notification channels") on the real stack: the API,
 * and a worker and API of their own (short WEBHOOK_DISABLE_AFTER_MS, PUBLIC_BASE_URL for the links)
 * whose AuditWorkflow and WebhookHealthWorkflow notify through NotificationWorkflows; Slack and Teams
 * are receivers on 127.0.0.1, e-mail the mailer's mail_outbox.
 */
describe('notification channels', function () {
  this.timeout(120_000);
  let worker: RunningWorker;
  let apiForQueue: RunningApi | undefined;
  let baseUrl: string;
  let dashboardUrl: string;
  let robotsSite: LocalSite;

  before(async () => {
    const stack = await getStack();
    dashboardUrl = stack.url;
    // Disallowed by robots.txt: the audit fails at once with robots_disallowed (no retries).
    robotsSite = await serveSite({ '/robots.txt': { body: 'User-agent: *\nDisallow: /\n' }, '/': { body: 'hi' } });
    const config = { ...stack.config, taskQueue: TASK_QUEUE, webhookDisableAfterMs: 3_000 };
    worker = await startWorker({
      config: { ...config, publicBaseUrl: dashboardUrl },
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
    await robotsSite?.close();
  });

  const create = (account: TestAccount, body: unknown, key = account.liveKey) =>
    api('POST', '/v1/notification-channels', { key, body, baseUrl });
  async function channel(account: TestAccount, body: object): Promise<string> {
    const created = await create(account, body);
    assert.equal(created.status, 201, created.text);
    return created.body.channel_id;
  }
  async function failedAudit(account: TestAccount): Promise<string> {
    const accepted = await api('POST', '/v1/audits', {
      key: account.liveKey,
      body: { domain: robotsSite.origin },
      baseUrl,
    });
    assert.equal(accepted.status, 202, accepted.text);
    const ended = await waitForAudit(account.liveKey, accepted.body.audit_id, 30_000);
    assert.equal(ended.body.status, 'failed', ended.text);
    return accepted.body.audit_id;
  }
  const logOf = async (channelId: string) => (await getStack()).db('notifications').where({ channel_id: channelId });

  it('creates, lists and removes channels, each workspace and environment seeing only its own', async () => {
    const account = await newAccount('free');
    const other = await newAccount('pro');
    const email = await create(account, { type: 'email', target: 'Ops@Example.COM', events: ['audit.failed'] });
    assert.equal(email.status, 201, email.text);
    assert.match(email.body.channel_id, /^nch_[0-9A-Za-z]{20}$/);
    const { channel_id: _id, created_at: createdAt, ...shown } = email.body;
    assert.deepEqual(shown, { type: 'email', target: 'Ops@example.com', events: ['audit.failed'] });
    assert.match(createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const slack = await channel(account, {
      type: 'slack',
      target: 'http://127.0.0.1:9/hook',
      events: ['site.regressed'],
    });
    const teams = await channel(account, {
      type: 'teams',
      target: 'http://127.0.0.1:9/teams',
      events: ['webhook.failing', 'webhook.disabled'],
    });
    const list = await api('GET', '/v1/notification-channels', { key: account.liveKey });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.map((c: { channel_id: string }) => c.channel_id),
      [email.body.channel_id, slack, teams],
    );
    assert.equal(list.body.has_more, false);
    const paged = await api('GET', '/v1/notification-channels?limit=2', { key: account.liveKey });
    const rest = await api('GET', `/v1/notification-channels?cursor=${paged.body.next_cursor}`, {
      key: account.liveKey,
    });
    assert.deepEqual(
      [paged.body.data.length, rest.body.data.map((c: { channel_id: string }) => c.channel_id)],
      [2, [teams]],
    );
    assert.deepEqual((await api('GET', '/v1/notification-channels', { key: account.testKey })).body.data, []);
    assert.deepEqual((await api('GET', '/v1/notification-channels', { key: other.liveKey })).body.data, []);

    // Another workspace's channel, or one of the other environment: 404, and it stays.
    assertEnvelope(
      await api('DELETE', `/v1/notification-channels/${slack}`, { key: other.liveKey }),
      404,
      'notification_channel_not_found',
    );
    assertEnvelope(
      await api('DELETE', `/v1/notification-channels/${slack}`, { key: account.testKey }),
      404,
      'notification_channel_not_found',
    );
    const removed = await api('DELETE', `/v1/notification-channels/${slack}`, { key: account.liveKey });
    assert.equal(removed.status, 204, removed.text);
    assert.equal(removed.text, '');
    assertEnvelope(
      await api('DELETE', `/v1/notification-channels/${slack}`, { key: account.liveKey }),
      404,
      'notification_channel_not_found',
    );
    assertEnvelope(
      await api('DELETE', '/v1/notification-channels/wh_notachannel', { key: account.liveKey }),
      404,
      'notification_channel_not_found',
      /with this id/,
    );
    const after = await api('GET', '/v1/notification-channels', { key: account.liveKey });
    assert.deepEqual(
      after.body.data.map((c: { channel_id: string }) => c.channel_id),
      [email.body.channel_id, teams],
    );
  });

  it('refuses bad input with the 400 envelope and stores nothing', async () => {
    const account = await newAccount('pro');
    const valid = { type: 'slack', target: 'http://127.0.0.1:9/hook', events: ['audit.failed'] };
    const cases: Array<[unknown, RegExp]> = [
      [{ ...valid, type: 'discord' }, /type/],
      [{ target: valid.target, events: valid.events }, /type/],
      [{ type: 'email', events: valid.events }, /target/],
      [{ ...valid, events: [] }, /events/],
      [{ ...valid, events: ['audit.completed'] }, /events/],
      [{ ...valid, events: ['audit.failed', 'audit.failed'] }, /events/],
      [{ ...valid, secret: 'x' }, /secret|additional/],
      [{ ...valid, target: '' }, /target/],
      [{ ...valid, target: 'x'.repeat(2049) }, /target/],
      [{ ...valid, target: 'hooks.slack.com/services/x' }, /^field target must be an absolute/],
      [{ ...valid, target: 'https://user:pw@127.0.0.1/hook' }, /credentials/],
      [{ ...valid, target: 'https://169.254.169.254/latest/meta-data' }, /^field target cannot receive webhooks/],
      [{ ...valid, target: 'https://10.0.0.1/hook' }, /^field target cannot receive webhooks/],
      [{ ...valid, target: 'http://93.184.215.14/hook' }, /^field target must be an https:\/\/ URL/],
      [{ ...valid, type: 'email', target: 'ops@example.com, boss@example.com' }, /e-mail address/],
      [{ ...valid, type: 'email', target: 'Ops <ops@example.com>' }, /e-mail address/],
      [{ ...valid, type: 'email', target: 'ops@example.com\r\nBcc: x@example.com' }, /control characters/],
      [{ ...valid, type: 'teams', target: 'ops@example.com' }, /^field target must be an absolute/],
      [[valid], /body/],
    ];
    for (const [body, message] of cases) assertEnvelope(await create(account, body), 400, 'invalid_request', message);
    const raw = (rawBody: string, contentType: string) =>
      api('POST', '/v1/notification-channels', {
        key: account.liveKey,
        rawBody,
        headers: { 'Content-Type': contentType },
        baseUrl,
      });
    assertEnvelope(await raw('{"type":', 'application/json'), 400, 'invalid_request');
    assertEnvelope(await raw(JSON.stringify(valid), 'text/plain'), 400, 'invalid_request');
    const { db } = await getStack();
    assert.equal((await db('notification_channels').where({ workspace_id: account.workspaceId })).length, 0);
    assertEnvelope(
      await api('GET', '/v1/notification-channels?limit=0', { key: account.liveKey }),
      400,
      'invalid_request',
    );
    assertEnvelope(
      await api('GET', '/v1/notification-channels?cursor=nope', { key: account.liveKey }),
      400,
      'invalid_request',
    );
  });

  it('tells Slack, Teams and an e-mail address of audit.failed once each, in their own formats, linking to the audit', async () => {
    const { db } = await getStack();
    const account = await newAccount('pro');
    const slack = await chatReceiver(ok);
    const teams = await chatReceiver(() => ({ status: 202 }));
    const elsewhere = await chatReceiver(ok);
    const address = `ops-${account.workspaceId.toLowerCase()}@example.com`;
    try {
      const slackId = await channel(account, { type: 'slack', target: slack.url, events: ['audit.failed'] });
      const teamsId = await channel(account, { type: 'teams', target: teams.url, events: ['audit.failed'] });
      const emailId = await channel(account, { type: 'email', target: address, events: ['audit.failed'] });
      // Listens to other events only: told nothing.
      await channel(account, { type: 'slack', target: elsewhere.url, events: ['site.regressed', 'webhook.disabled'] });
      const auditId = await failedAudit(account);
      const link = `${dashboardUrl}/audits/${auditId}`;
      const mail = () => db('mail_outbox').where({ to_address: address }).select('subject', 'body');
      await until(
        async () => slack.received.length && teams.received.length && (await mail()).length,
        30_000,
        'all three',
      );
      await new Promise((resolve) => setTimeout(resolve, SCHEDULE_OVER_MS));
      assert.deepEqual(
        [slack.received.length, teams.received.length, (await mail()).length, elsewhere.received.length],
        [1, 1, 1, 0],
      );

      const slackBody = JSON.parse(slack.received[0].body);
      assert.equal(slack.received[0].headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(slackBody.text, `Audit failed: ${robotsSite.origin}: <${link}|Open the audit>`);
      assert.deepEqual(
        slackBody.blocks.map((b: { type: string }) => b.type),
        ['header', 'section', 'section', 'section', 'context'],
      );
      assert.deepEqual(slackBody.blocks[0].text, {
        type: 'plain_text',
        text: `Audit failed: ${robotsSite.origin}`,
        emoji: false,
      });
      assert.ok(slackBody.blocks[2].fields.some((f: { text: string }) => f.text === 'Error\nrobots_disallowed'));
      assert.equal(slackBody.blocks[3].text.text, `<${link}|Open the audit>`);

      const teamsBody = JSON.parse(teams.received[0].body);
      assert.equal(teamsBody.type, 'message');
      const [attachment] = teamsBody.attachments;
      assert.equal(attachment.contentType, 'application/vnd.microsoft.card.adaptive');
      assert.equal(attachment.content.type, 'AdaptiveCard');
      assert.equal(attachment.content.version, '1.4');
      assert.deepEqual(attachment.content.actions, [{ type: 'Action.OpenUrl', title: 'Open the audit', url: link }]);
      assert.equal(attachment.content.body[1].inlines[0].text, `Audit failed: ${robotsSite.origin}`);

      const [email] = await mail();
      assert.equal(email.subject, `[Domain Audit] Audit failed: ${robotsSite.origin}`);
      assert.ok(email.body.includes(`Open the audit: ${link}`), email.body);
      assert.ok(email.body.includes('Error: robots_disallowed'), email.body);

      for (const id of [slackId, teamsId, emailId]) {
        const [row] = await logOf(id);
        assert.deepEqual([row.event, row.audit_id, row.state, row.attempts], ['audit.failed', auditId, 'delivered', 1]);
      }
      assert.equal((await logOf(slackId))[0].payload, slack.received[0].body, 'the logged body is the one sent');
    } finally {
      await Promise.all([slack.close(), teams.close(), elsewhere.close()]);
    }
  });

  it('retries a 503 and a 429 (after its Retry-After) and delivers once; a 404 is not retried', async () => {
    const account = await newAccount('pro');
    const flaky = await chatReceiver((i) => ({ status: i === 0 ? 503 : 200 }));
    const limited = await chatReceiver((i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : ok()));
    const gone = await chatReceiver(() => ({ status: 404 }));
    try {
      const flakyId = await channel(account, { type: 'slack', target: flaky.url, events: ['audit.failed'] });
      const limitedId = await channel(account, { type: 'teams', target: limited.url, events: ['audit.failed'] });
      const goneId = await channel(account, { type: 'slack', target: gone.url, events: ['audit.failed'] });
      await failedAudit(account);
      await until(
        () => flaky.received.length >= 2 && limited.received.length >= 2 && gone.received.length >= 1,
        30_000,
        'the attempts',
      );
      await new Promise((resolve) => setTimeout(resolve, SCHEDULE_OVER_MS));
      assert.deepEqual([flaky.received.length, limited.received.length, gone.received.length], [2, 2, 1]);
      assert.equal(flaky.received[1].body, flaky.received[0].body, 'the same message again');
      assert.ok(limited.received[1].at - limited.received[0].at >= 1_000, 'not before Retry-After');
      const state = async (id: string) => {
        const [row] = await logOf(id);
        return [row.state, row.attempts, row.last_status_code, row.last_error_class];
      };
      assert.deepEqual(await state(flakyId), ['delivered', 2, 200, null]);
      assert.deepEqual(await state(limitedId), ['delivered', 2, 200, null]);
      assert.deepEqual(await state(goneId), ['failed', 1, 404, 'non_2xx']);
      assert.equal((await logOf(goneId))[0].last_error_message, 'no_service');
    } finally {
      await Promise.all([flaky.close(), limited.close(), gone.close()]);
    }
  });

  it('tells of webhook.failing and webhook.disabled from the health of a failing webhook', async () => {
    const { db } = await getStack();
    const account = await newAccount('pro');
    const dead = await chatReceiver(() => ({ status: 500 }));
    const slack = await chatReceiver(ok);
    const address = `webhooks-${account.workspaceId.toLowerCase()}@example.com`;
    try {
      const webhook = await api('POST', '/v1/webhooks', {
        key: account.liveKey,
        body: { url: dead.url, events: ['audit.completed'] },
        baseUrl,
      });
      assert.equal(webhook.status, 201, webhook.text);
      const webhookId = webhook.body.webhook_id;
      await channel(account, { type: 'slack', target: slack.url, events: ['webhook.failing', 'webhook.disabled'] });
      await channel(account, { type: 'email', target: address, events: ['webhook.disabled'] });
      // A failed test event starts the streak, as any failed attempt does.
      const test = await api('POST', `/v1/webhooks/${webhookId}/test`, { key: account.liveKey, baseUrl });
      assert.equal(test.body.delivered, false, test.text);
      await until(() => slack.received.length >= 2, 30_000, 'webhook.failing and webhook.disabled');
      const [failing, disabled] = slack.received.map((r) => JSON.parse(r.body));
      const link = `<${dashboardUrl}/webhooks/${webhookId}|Open the webhook>`;
      assert.equal(failing.text, `Webhook failing: ${dead.url}: ${link}`);
      assert.equal(failing.blocks[4].elements[0].text, 'Domain Audit · webhook.failing');
      assert.equal(disabled.text, `Webhook disabled: ${dead.url}: ${link}`);
      const mail = await until(
        async () => (await db('mail_outbox').where({ to_address: address })).at(0),
        10_000,
        'the e-mail',
      );
      assert.equal(mail.subject, `[Domain Audit] Webhook disabled: ${dead.url}`);
      assert.ok(mail.body.includes('Reason: consecutive_failures'), mail.body);
    } finally {
      await Promise.all([dead.close(), slack.close()]);
    }
  });

  it('plans site.regressed for a regressed audit of a monitored site, and sends test-mode channels to the mock receiver', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    const slack = await chatReceiver(ok);
    const testTarget = await chatReceiver(ok);
    try {
      const slackId = await channel(account, { type: 'slack', target: slack.url, events: ['site.regressed'] });
      const testChannel = await create(
        account,
        { type: 'slack', target: testTarget.url, events: ['audit.failed'] },
        account.testKey,
      );
      assert.equal(testChannel.status, 201, testChannel.text);
      const domain = robotsSite.origin;
      const site = await api('POST', '/v1/sites', { key: account.liveKey, body: { domain, schedule: 'daily' } });
      assert.equal(site.status, 201, site.text);
      const previous = await seedCompletedAudit(account, { domain, mode: 'live', fingerprints: [] });
      const comparison = { previous_audit_id: previous, previous_score: 86, score_delta: -6, new: ['fp_new1'] };
      const regressed = await seedCompletedAudit(account, {
        domain,
        mode: 'live',
        fingerprints: ['fp_new1'],
        extra: { comparison },
      });
      const failedTest = await seedCompletedAudit(account, { domain, mode: 'test', fingerprints: [] });
      await stack.db('audits').where({ id: failedTest }).update({ status: 'failed', error_code: 'robots_disallowed' });

      const occasion = (auditId: string, event: 'audit.completed' | 'audit.failed', mode: 'live' | 'test') =>
        ({
          event,
          auditId,
          workspaceId: account.workspaceId,
          mode,
          emissionKey: `test:${auditId}`,
        }) as NotificationOccasion;
      const planned = [
        ...(await planNotifications(stack.db, occasion(regressed, 'audit.completed', 'live'), stack.clock.now())),
        ...(await planNotifications(stack.db, occasion(previous, 'audit.completed', 'live'), stack.clock.now())),
        ...(await planNotifications(stack.db, occasion(failedTest, 'audit.failed', 'test'), stack.clock.now())),
      ];
      assert.deepEqual(
        planned.map((p) => [p.event, p.about]),
        [
          ['site.regressed', { auditId: regressed, siteId: site.body.site_id }],
          ['audit.failed', { auditId: failedTest }],
        ],
      );
      const { client } = stack.service.temporal;
      await Promise.all(
        planned.map((p) =>
          client.workflow.execute(NotificationWorkflow, {
            workflowId: notificationWorkflowId(p.notificationId),
            taskQueue: TASK_QUEUE,
            args: [{ ...p, retryDelaysMs: [100], timeoutMs: 1_000 }],
          }),
        ),
      );
      assert.equal(slack.received.length, 1);
      const message = JSON.parse(slack.received[0].body);
      assert.equal(
        message.text,
        `Site regressed: ${domain}: <${dashboardUrl}/sites/${site.body.site_id}|Open the site>`,
      );
      assert.equal(
        message.blocks[1].text.text,
        `The latest audit of ${domain} scored 80 (-6 since the previous one) with 1 new finding.`,
      );
      assert.ok(message.blocks[3].text.text.includes(`<${dashboardUrl}/audits/${regressed}|Open the audit>`));
      assert.equal((await logOf(slackId))[0].state, 'delivered');
      // Test mode: the mock receiver answered, the configured target heard nothing.
      assert.equal(testTarget.received.length, 0);
      const [testRow] = await logOf(testChannel.body.channel_id);
      assert.deepEqual([testRow.state, testRow.last_status_code], ['delivered', 200]);
      assert.ok(testRow.payload.includes(`${dashboardUrl}/test/audits/${failedTest}`), testRow.payload);
    } finally {
      await Promise.all([slack.close(), testTarget.close()]);
    }
  });
});
