import fs from 'node:fs';
import path from 'node:path';
import type { Workflow } from '@temporalio/common';
import { CrawlWorkflow, DeliveryWorkflow, ReportWorkflow } from '../../workflows';
import { redeliverSignal } from '../../workflows/contracts';
import { writeHistoryFile } from '../replay/history-file';
import { startTestInfrastructure } from '../support/infrastructure';

/**
 * `node --import tsx test/tools/record-histories.ts <label>`: runs the real stack (Temporal dev
 * server, Postgres, API and worker, as `npm test` does, with its short retry delays) through one
 * scenario per workflow path and saves each execution's event history to
 * test/replay/histories/<label>-<name>.json. test/integration/replay.test.ts replays every file
 * against the current workflow code, so a change that would break workflows already running fails
 * the suite. Record under a new label after a patched() change, keeping the older files; never
 * re-record to make a failing replay pass. Live audits run with the browser stage (labels from
 * v3-browser on; needs Chromium). Names after the label save only those histories, e.g.
 * `v9-app-shell crawl-app-shell` (the crawl of a client-rendered site, patch app-shell-render), or
 * `v10-render-all audit-render-all crawl-render-all` (a team audit with `render: "all"`, patch render-all).
 */
const OUT_DIR = path.join(__dirname, '..', 'replay', 'histories');
const HOME =
  '<!doctype html><html lang="en"><head><title>Replay fixture site for audits</title></head><body><h1>Hi</h1></body></html>';

async function main(): Promise<void> {
  const label = process.argv[2];
  if (!label || !/^[a-z0-9-]+$/.test(label))
    throw new Error('usage: record-histories.ts <label> [name…], e.g. v2, or v9-app-shell crawl-app-shell');
  // Names given: only those histories are saved (a change to one workflow path, while others are in flux).
  const only = new Set(process.argv.slice(3));
  const infra = await startTestInfrastructure((line) => console.log(`[setup] ${line}`));
  // Loaded once the infrastructure exists: the stack reads TEST_DATABASE_URL and TEST_TEMPORAL_ADDRESS.
  const stack = require('../support/stack') as typeof import('../support/stack');
  const { serveSite, closedPort } = require('../support/sites') as typeof import('../support/sites');
  const { serveRenderFixture } =
    require('../support/client-rendered-sites') as typeof import('../support/client-rendered-sites');
  const { startReceiver, until } = require('../support/receiver') as typeof import('../support/receiver');
  const { client } = (await stack.getStack()).service.temporal;
  // Live audits go through an API with the browser stage on (the shared stack runs with it off), so
  // their histories follow the patched browser-stage path: rendered, or cancelled with a failed attempt.
  const { config } = await stack.getStack();
  const browserStage = { taskQueue: `${config.taskQueue}-browser`, timeoutMs: 10 * 60_000 };
  const auditApi = await stack.startExtraApi({ config: { ...config, browserStage } });
  const site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  // A client-rendered site: its crawl renders application shells on the browser worker (from v9-app-shell).
  const clientRendered = await serveRenderFixture('client');
  // A team audit rendering every page of a small site (from v10-render-all).
  const { serveRenderAllSite } = require('../support/render-all-site') as typeof import('../support/render-all-site');
  const renderAllSite = await serveRenderAllSite();
  const healthy = await startReceiver(() => 200);
  // Refuses every automatic attempt; accepts once an operator redelivers.
  let accepting = false;
  const flaky = await startReceiver(() => (accepting ? 200 : 500));

  const save = async (name: string, workflowId: string): Promise<void> => {
    if (only.size > 0 && !only.has(name)) return;
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
  const liveAudit = async (
    webhookUrl: string,
    domain: string,
    options: { render?: 'all' } = {},
  ): Promise<{ auditId: string; key: string; webhookId: string }> => {
    const account = await stack.newAccount(options.render ? 'team' : 'pro');
    const webhook = await stack.api('POST', '/v1/webhooks', { key: account.liveKey, body: { url: webhookUrl } });
    if (webhook.status !== 201) throw new Error(webhook.text);
    const trigger = await stack.api('POST', '/v1/audits', {
      key: account.liveKey,
      body: { domain, ...options },
      baseUrl: auditApi.url,
    });
    if (trigger.status !== 202) throw new Error(trigger.text);
    return { auditId: trigger.body.audit_id, key: account.liveKey, webhookId: webhook.body.webhook_id };
  };

  const testAudit = async (webhookUrl: string): Promise<string> => {
    const account = await stack.newAccount('pro');
    const webhook = await stack.api('POST', '/v1/webhooks', { key: account.testKey, body: { url: webhookUrl } });
    if (webhook.status !== 201) throw new Error(webhook.text);
    const trigger = await stack.api('POST', '/v1/audits', {
      key: account.testKey,
      body: { domain: 'https://replay.example.com' },
    });
    if (trigger.status !== 202) throw new Error(trigger.text);
    return trigger.body.audit_id;
  };

  try {
    fs.mkdirSync(OUT_DIR, { recursive: true });
    const testCompleted = await testAudit(healthy.url);
    const completed = await liveAudit(healthy.url, site.origin);
    const failed = await liveAudit(healthy.url, `http://127.0.0.1:${await closedPort()}`);
    const redelivered = await liveAudit(flaky.url, site.origin);
    const appShell = await liveAudit(healthy.url, clientRendered.origin);
    const renderAll = await liveAudit(healthy.url, renderAllSite.origin, { render: 'all' });
    await Promise.all(
      [completed, failed, redelivered, { auditId: testCompleted }].map((a) =>
        client.workflow.getHandle(a.auditId).result(),
      ),
    );

    // Refused at its first attempt (made by the audit workflow): the one delivery with a workflow of its own.
    const [failedThenRedelivered] = await childrenOf(redelivered.auditId, DeliveryWorkflow);
    const { db } = await stack.getStack();
    await until(
      async () => (await db('deliveries').where({ id: failedThenRedelivered }).first('state'))?.state === 'failed',
      30_000,
      'the failed delivery',
    );
    accepting = true;
    await client.workflow.getHandle(failedThenRedelivered).signal(redeliverSignal);

    // Acknowledged at once, then redelivered by hand through the API: its workflow starts then.
    const acknowledged = await db('deliveries').where({ audit_id: completed.auditId }).first('id');
    const retry = await stack.api('POST', `/v1/webhooks/${completed.webhookId}/deliveries/${acknowledged.id}/retry`, {
      key: completed.key,
    });
    if (retry.status !== 202) throw new Error(retry.text);

    // Awaited last: its renders take longer than the redelivery window the scenarios above depend on.
    await client.workflow.getHandle(appShell.auditId).result();
    await client.workflow.getHandle(renderAll.auditId).result();
    await Promise.all([
      save('audit-completed', completed.auditId),
      save('test-audit-completed', testCompleted),
      save('audit-retried-then-failed', failed.auditId),
      save('delivery-redelivered-after-acknowledged', acknowledged.id),
      save('delivery-failed-then-redelivered', failedThenRedelivered),
      save('report', (await childrenOf(completed.auditId, ReportWorkflow))[0]),
      // From v7-durable-crawl on, live audits crawl in a child CrawlWorkflow per attempt.
      save('crawl', (await childrenOf(completed.auditId, CrawlWorkflow))[0]),
      save('crawl-app-shell', (await childrenOf(appShell.auditId, CrawlWorkflow))[0]),
      save('audit-render-all', renderAll.auditId),
      save('crawl-render-all', (await childrenOf(renderAll.auditId, CrawlWorkflow))[0]),
    ]);
  } finally {
    await Promise.all([site.close(), clientRendered.close(), renderAllSite.close(), healthy.close(), flaky.close()]);
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
