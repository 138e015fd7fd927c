import assert from 'node:assert/strict';
import { createLiveEngine } from '../../src/audits/live-engine';
import type { AuditEngine } from '../../src/audits/produce';
import { startWorker } from '../../processes/audit-worker';
import { type RunningApi } from '../../processes/api-service';
import { api, getStack, newAccount, startExtraApi, stopExtraApi, waitForAudit, workflowBundle } from '../support/stack';
import { serveSite } from '../support/sites';

describe('failure classes through the workflow (injected crawl faults)', function () {
  this.timeout(60_000);

  it('fails attempts with audit_provider_unavailable and retries; the last attempt completes with the analyzers that needed it in error', async () => {
    const stack = await getStack();
    const site = await serveSite({
      '/robots.txt': { body: '' },
      '/': { body: '<!doctype html><html lang="en"><title>Provider outage fixture site</title><h1>Hi</h1></html>' },
    });
    const taskQueue = 'audits-provider-outage-test';
    const config = { ...stack.config, taskQueue };
    // The real crawl, with the DNS provider down (the fixture host is an IP literal, which is never looked up).
    const real = createLiveEngine(config);
    const engineWithDnsDown: AuditEngine = {
      ...real,
      analyze: (row, crawl, context) =>
        real.analyze(
          row,
          { ...crawl, snapshot: { ...crawl.snapshot, dns: { ok: false, error: 'resolver timed out (ETIMEOUT)' } } },
          context,
        ),
    };
    const worker = await startWorker({
      config,
      db: stack.db,
      clock: stack.clock,
      temporalAddress: stack.temporalAddress,
      engine: engineWithDnsDown,
      workflowBundle: await workflowBundle(),
      testWebhookMockUrl: `${stack.url}/mock/webhooks`,
    });
    let apiForQueue: RunningApi | undefined;
    try {
      apiForQueue = await startExtraApi({ config });
      const account = await newAccount('pro');
      const { body } = await api('POST', '/v1/audits', {
        key: account.liveKey,
        baseUrl: apiForQueue.url,
        body: { domain: site.origin },
      });
      const done = await waitForAudit(account.liveKey, body.audit_id, 30_000);
      assert.equal(done.body.status, 'completed', done.text);
      const row = await stack.db('audits').where({ id: body.audit_id }).first('attempts');
      assert.equal(row.attempts, 4, 'three retries, then completed without the provider');
      const dnsAnalyzers = done.body.analyzers.filter((a: { category: string }) => a.category === 'dns_email');
      assert.ok(dnsAnalyzers.length > 0);
      assert.ok(dnsAnalyzers.every((a: { status: string; weight: number }) => a.status === 'error' && a.weight === 0));
      assert.equal(
        done.body.categories.dns_email,
        undefined,
        'a category with no measurable analyzer is left out of the score',
      );
      const history = await stack.service.temporal.client.workflow.getHandle(body.audit_id).fetchHistory();
      const failures = (history.events ?? []).filter(
        (e) =>
          e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'audit_provider_unavailable',
      );
      assert.equal(failures.length, 3);
    } finally {
      await stopExtraApi(apiForQueue);
      await worker.shutdown();
      await site.close();
    }
  });
});

describe('an unexpected error in the engine', function () {
  this.timeout(90_000);

  it('is retried as internal_error and, when it persists, fails the audit with a generic message', async () => {
    const stack = await getStack();
    const taskQueue = 'audits-internal-error-test';
    const config = { ...stack.config, taskQueue };
    const site = await serveSite({
      '/robots.txt': { body: '' },
      '/': { body: '<!doctype html><html lang="en"><title>Broken engine fixture site</title><h1>Hi</h1></html>' },
    });
    const broken: AuditEngine = {
      ...createLiveEngine(config),
      analyze: async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'secret internals')");
      },
    };
    const worker = await startWorker({
      config,
      db: stack.db,
      clock: stack.clock,
      temporalAddress: stack.temporalAddress,
      engine: broken,
      workflowBundle: await workflowBundle(),
      testWebhookMockUrl: `${stack.url}/mock/webhooks`,
    });
    let apiForQueue: RunningApi | undefined;
    try {
      apiForQueue = await startExtraApi({ config });
      const account = await newAccount('pro');
      const { body } = await api('POST', '/v1/audits', {
        key: account.liveKey,
        baseUrl: apiForQueue.url,
        body: { domain: site.origin },
      });
      const failed = await waitForAudit(account.liveKey, body.audit_id, 80_000);
      assert.equal(failed.body.status, 'failed');
      assert.equal(failed.body.error.code, 'internal_error');
      assert.equal(failed.body.attempts, 4);
      assert.ok(!failed.body.error.message.includes('secret internals'), 'internal details stay internal');
    } finally {
      await stopExtraApi(apiForQueue);
      await worker.shutdown();
      await site.close();
    }
  });
});
