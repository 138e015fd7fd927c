import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Workflow } from '@temporalio/common';
import { NotificationWorkflow } from '../../workflows';
import { webhookHealthWorkflowId } from '../../workflows/contracts';
import { writeHistoryFile } from '../replay/history-file';
import { startTestInfrastructure } from '../support/infrastructure';

/**
 * `npm exec -- node --import tsx test/tools/record-notification-histories.ts <label>`: runs the real
 * stack (WEBHOOK_DISABLE_AFTER_MS=3000, the tests' short delivery delays) through the workflows that
 * notify channels (docs/architecture.md, "Notifications") and saves, as
 * test/replay/histories/<label>-<name>.json for test/integration/replay.test.ts:
 * - audit-failed-notified: a live AuditWorkflow (browser stage off) whose audit.failed notifies three
 *   channels (patch audit-notifies-channels); test-audit-completed: a test audit, nobody listening;
 * - notification-delivered, notification-retried-then-delivered (503, then 200) and
 *   notification-refused (404, not retried): its NotificationWorkflows;
 * - webhook-health-disabled-notified: a WebhookHealthWorkflow that warns and disables, telling a
 *   channel of webhook.failing and webhook.disabled (patch health-notifies-channels), and
 *   notification-email: the e-mail of webhook.disabled.
 * Same rules as test/tools/record-histories.ts: a new label per change, never re-recorded to pass.
 */
const OUT_DIR = path.join(__dirname, '..', 'replay', 'histories');

/** A receiver on 127.0.0.1 answering the statuses given, one per request (the last one from then on). */
async function receiver(statuses: number[]): Promise<{ url: string; close(): Promise<void> }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(statuses[Math.min(count++, statuses.length - 1)]).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function main(): Promise<void> {
  const label = process.argv[2];
  if (!label || !/^[a-z0-9-]+$/.test(label)) throw new Error('usage: record-notification-histories.ts <label>');
  const infra = await startTestInfrastructure((line) => console.log(`[setup] ${line}`));
  process.env.WEBHOOK_DISABLE_AFTER_MS = '3000';
  // Loaded once the infrastructure exists: the stack reads TEST_DATABASE_URL and TEST_TEMPORAL_ADDRESS.
  const stack = require('../support/stack') as typeof import('../support/stack');
  const { serveSite } = require('../support/sites') as typeof import('../support/sites');
  const { until } = require('../support/receiver') as typeof import('../support/receiver');
  const { db, service } = await stack.getStack();
  const { client } = service.temporal;
  const site = await serveSite({ '/robots.txt': { body: 'User-agent: *\nDisallow: /\n' }, '/': { body: 'hi' } });
  const [ok, flaky, gone, dead] = await Promise.all([
    receiver([200]),
    receiver([503, 200]),
    receiver([404]),
    receiver([500]),
  ]);
  const save = async (name: string, workflowId: string): Promise<void> => {
    const handle = client.workflow.getHandle(workflowId);
    await handle.result().catch(() => undefined);
    const history = await handle.fetchHistory();
    writeHistoryFile(path.join(OUT_DIR, `${label}-${name}.json`), history);
    console.log(`recorded ${label}-${name} (${history.events?.length ?? 0} events)`);
  };
  const childrenOf = async (workflowId: string, type: Workflow): Promise<string[]> => {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? [])
      .map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
      .filter((a) => a?.workflowType?.name === type.name)
      .map((a) => a!.workflowId!);
  };
  try {
    const account = await stack.newAccount('pro');
    const post = async (route: string, body: object, key = account.liveKey) => {
      const response = await stack.api('POST', route, { key, body });
      if (response.status >= 300) throw new Error(`${route}: ${response.text}`);
      return response.body;
    };
    const channel = async (type: string, target: string, events: string[]) =>
      (await post('/v1/notification-channels', { type, target, events })).channel_id as string;
    const delivered = await channel('slack', ok.url, ['audit.failed', 'webhook.failing', 'webhook.disabled']);
    const retried = await channel('teams', flaky.url, ['audit.failed']);
    const refused = await channel('slack', gone.url, ['audit.failed']);
    const emailed = await channel('email', `ops-${label}@example.com`, ['webhook.disabled']);

    const failed = (await post('/v1/audits', { domain: site.origin })).audit_id as string;
    const testCompleted = (await post('/v1/audits', { domain: 'https://replay.example.com' }, account.testKey))
      .audit_id as string;
    await Promise.all([failed, testCompleted].map((id) => client.workflow.getHandle(id).result()));
    const notificationOf = async (channelId: string, workflowIds: string[]) => {
      const row = await db('notifications').whereIn('id', workflowIds).where({ channel_id: channelId }).first('id');
      if (!row) throw new Error(`no notification to ${channelId}`);
      return row.id as string;
    };
    const fromAudit = await childrenOf(failed, NotificationWorkflow);
    await until(async () => (await db('notifications').whereIn('id', fromAudit)).length === 3, 30_000, 'the log');

    const webhook = await post('/v1/webhooks', { url: dead.url, events: ['audit.completed'] });
    await post(`/v1/webhooks/${webhook.webhook_id}/test`, {});
    const health = webhookHealthWorkflowId(webhook.webhook_id);
    await client.workflow.getHandle(health).result();
    const fromHealth = await childrenOf(health, NotificationWorkflow);

    await Promise.all([
      save('audit-failed-notified', failed),
      save('test-audit-completed', testCompleted),
      save('notification-delivered', await notificationOf(delivered, fromAudit)),
      save('notification-retried-then-delivered', await notificationOf(retried, fromAudit)),
      save('notification-refused', await notificationOf(refused, fromAudit)),
      save('webhook-health-disabled-notified', health),
      save('notification-email', await notificationOf(emailed, fromHealth)),
    ]);
  } finally {
    await Promise.all([site.close(), ok.close(), flaky.close(), gone.close(), dead.close()]);
    await stack.stopStack();
    await infra.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
