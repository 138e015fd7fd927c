import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { bundleWorkflows } from '../../temporal/worker';
import { readHistoryFile } from '../replay/history-file';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { completedAudit, startMainProcess, testAccount } from '../support/main-process';
import { startReceiver, until } from '../support/receiver';

/** The default OTLP/HTTP port: where an SDK left to its defaults would send spans. */
const DEFAULT_OTLP_PORT = 4318;

/**
 * OpenTelemetry across the processes `npm start` runs (docs/operations.md "Traces"): the API and the
 * audit worker as separate processes, exporting to an OTLP/HTTP receiver in this test process.
 */
describe('traces across API, workflows and activities', function () {
  this.timeout(240_000);
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(() => receiver.close());

  it('follows an audit from POST /v1/audits through its workflow to its activities and its webhook POST', async () => {
    const hooks = await startReceiver();
    const service = await startMainProcess('tsx', {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=collector-SECRET',
      OTEL_SERVICE_NAME: 'audit-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      // Test-mode deliveries go here (a test key's webhook is never called at its own URL).
      TEST_WEBHOOK_MOCK_URL: hooks.url,
    });
    try {
      const { testKey } = await testAccount();
      const headers = { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' };
      const webhook = await fetch(`${service.url}/v1/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: 'http://127.0.0.1:9/in/TOKEN-SECRET?sig=QUERY-SECRET' }),
      });
      assert.equal(webhook.status, 201, await webhook.clone().text());
      const auditId = await completedAudit(service.url, testKey);
      await until(() => hooks.received.length > 0, 30_000, 'the webhook delivery');

      const trace = await until(() => auditTrace(receiver.spans, auditId), 30_000, "the audit's trace");
      const byName = (name: string) => trace.filter((span) => span.name === name);
      const [request] = byName('POST /v1/audits');
      const [start] = byName('StartWorkflow:AuditWorkflow');
      const [run] = byName('RunWorkflow:AuditWorkflow');
      assert.ok(request && start && run, `spans: ${trace.map((s) => `${s.service} ${s.name}`).join(', ')}`);
      // API request → the client's workflow start → the workflow → its activities.
      assert.equal(start.parentSpanId, request.spanId);
      assert.equal(run.parentSpanId, start.spanId);
      const activities = trace.filter((span) => span.name.startsWith('RunActivity:'));
      assert.ok(activities.length > 0, 'activity spans');
      const workflowSpans = new Set(trace.filter((s) => s.service === 'audit-test-worker').map((s) => s.spanId));
      for (const activity of activities) assert.ok(workflowSpans.has(activity.parentSpanId!), activity.name);
      // …and the delivery's POST, made by an activity, in the same trace.
      const post = trace.find((span) => span.name === 'POST 127.0.0.1');
      assert.ok(post, 'the webhook POST');
      assert.equal(post.attributes['http.response.status_code'], 200);

      // service.name tells the roles apart; resource attributes say which instance.
      assert.equal(request.service, 'audit-test-api');
      assert.equal(run.service, 'audit-test-worker');
      assert.deepEqual(new Set(trace.map((span) => span.service)), new Set(['audit-test-api', 'audit-test-worker']));
      // No key, Authorization header, receiver URL token or collector header in any span.
      const exported = JSON.stringify(receiver.spans);
      for (const secret of [testKey, 'Bearer', 'TOKEN-SECRET', 'QUERY-SECRET', 'collector-SECRET'])
        assert.ok(!exported.includes(secret), `${secret} exported`);
      assert.ok(receiver.requests.every((r) => r.headers['x-collector-key'] === 'collector-SECRET'));
      assert.ok(receiver.requests.every((r) => r.contentType === 'application/x-protobuf'));
    } finally {
      await service.stop();
      await hooks.close();
    }
  });

  it('exports nothing when the OTEL_EXPORTER_OTLP_* variables are unset', async () => {
    // Listens where a default endpoint would send, if that port is free on this machine.
    const atDefault = await startOtlpReceiver(DEFAULT_OTLP_PORT).catch(() => null);
    const service = await startMainProcess('tsx', { OTEL_SERVICE_NAME: 'audit-test', OTEL_BSP_SCHEDULE_DELAY: '100' });
    const sentBefore = receiver.requests.length;
    try {
      const { testKey } = await testAccount();
      await completedAudit(service.url, testKey);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      await service.stop();
      await atDefault?.close();
    }
    assert.equal(receiver.requests.length, sentBefore);
    assert.deepEqual(atDefault?.requests ?? [], []);
  });

  it('replays every recorded history on a workflow bundle with the tracing interceptors (tracing can be turned on)', async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // Already installed by the shared stack or another file of this run.
    }
    const dir = path.join(__dirname, '..', 'replay', 'histories');
    const histories = fs
      .readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => ({ workflowId: path.basename(file, '.json'), history: readHistoryFile(path.join(dir, file)) }));
    const failures: string[] = [];
    const replay = Worker.runReplayHistories(
      {
        workflowBundle: await bundleWorkflows({ tracing: true }),
        sinks: { exporter: { export: { fn: () => undefined } } },
      },
      histories,
    );
    for await (const result of replay) if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    assert.ok(histories.length >= 10);
    assert.deepEqual(failures, []);
  });
});

/** The spans of the trace whose API request started `auditId`'s workflow, once its activities are in. */
function auditTrace(spans: ReceivedSpan[], auditId: string): ReceivedSpan[] | undefined {
  const run = spans.find(
    (span) => span.name === 'RunWorkflow:AuditWorkflow' && String(span.attributes.temporalWorkflowId).includes(auditId),
  );
  if (!run) return undefined;
  const trace = spans.filter((span) => span.traceId === run.traceId);
  const complete =
    trace.some((span) => span.name === 'POST /v1/audits') &&
    trace.some((span) => span.name.startsWith('RunActivity:')) &&
    trace.some((span) => span.name === 'POST 127.0.0.1');
  return complete ? trace : undefined;
}
