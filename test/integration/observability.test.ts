import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { freePort } from '../../src/db/embedded';
import { createLogger } from '../../src/observability/logger';
import { api, getStack, newAccount, startExtraApi, waitForAudit, workflowBundle } from '../support/stack';
import { ensurePromtool, promtoolProblems, samples } from '../support/promtool';
import { startReceiver, until } from '../support/receiver';

const root = path.join(__dirname, '..', '..');

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  return response.text();
}

describe('observability: metrics and logs', function () {
  this.timeout(120_000);

  before(function () {
    if (!ensurePromtool((line) => console.log(`      ${line}`))) this.skip();
  });

  it("the API's /metrics passes promtool: requests by route template and status, audits, deliveries, backlog", async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    // Test-mode deliveries go to the API's mock receiver, never to this URL.
    const customer = await startReceiver();
    const webhook = await api('POST', '/v1/webhooks', { key: account.testKey, body: { url: customer.url } });
    await customer.close();
    assert.equal(webhook.status, 201, webhook.text);
    const created = await api('POST', '/v1/audits', {
      key: account.testKey,
      body: { domain: 'https://shop.example.com' },
    });
    assert.equal(created.status, 202, created.text);
    assert.equal((await waitForAudit(account.testKey, created.body.audit_id)).body.status, 'completed');
    await until(
      async () =>
        (await stack.db('deliveries').where({ webhook_id: webhook.body.webhook_id }).first('state'))?.state ===
        'delivered',
      30_000,
      'the delivery',
    );
    assert.equal((await api('GET', '/v1/audits/aud_doesnotexist', { key: account.testKey })).status, 404);
    assert.equal((await api('GET', '/no/such/path/aud_raw')).status, 404);

    const exposition = await scrape(stack.url);
    assert.equal(promtoolProblems(exposition), '');
    const requests = samples(exposition, 'audit_service_http_requests_total');
    const count = (route: string, status: string, method = 'GET') =>
      requests.find((s) => s.labels.route === route && s.labels.status === status && s.labels.method === method)
        ?.value ?? 0;
    assert.ok(count('/v1/audits', '202', 'POST') >= 1, exposition);
    assert.ok(count('/v1/audits/:auditId', '200') >= 1);
    assert.ok(count('/v1/audits/:auditId', '404') >= 1);
    // A path no route serves: `unmatched`, or the template of a catch-all (the dashboard's not-found page).
    assert.ok(
      requests.some((s) => s.labels.status === '404' && ['unmatched', '/{*rest}'].includes(s.labels.route)),
      JSON.stringify(requests),
    );
    for (const sample of requests) assert.doesNotMatch(sample.labels.route, /aud_|\/no\/such/, 'no raw URL as a label');
    const latency = samples(exposition, 'audit_service_http_request_duration_seconds_count');
    assert.ok(latency.some((s) => s.labels.route === '/v1/audits' && s.value >= 1));
    // In tests the worker runs in this process, so its audit metrics show here too.
    const audits = samples(exposition, 'audit_service_audits_total');
    assert.ok(audits.some((s) => s.labels.outcome === 'completed' && s.labels.mode === 'test' && s.value >= 1));
    assert.ok(samples(exposition, 'audit_service_audit_attempt_duration_seconds_count').length > 0);
    const delivered = samples(exposition, 'audit_service_webhook_delivery_attempts_total');
    assert.ok(
      delivered.some((s) => s.labels.outcome === 'delivered' && s.value >= 1),
      JSON.stringify(delivered),
    );
    assert.ok(samples(exposition, 'audit_service_webhook_delivery_duration_seconds_count').length > 0);
    assert.deepEqual(
      samples(exposition, 'audit_service_audits_backlog')
        .map((s) => s.labels.status)
        .sort(),
      ['queued', 'running'],
    );
    assert.ok(samples(exposition, 'process_resident_memory_bytes')[0].value > 0);
  });

  it('logs one JSON line per request with its ids, and never a key, cookie or password', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const service = await startExtraApi({ accessLog: createLogger({ level: 'info', destination }) });
    const account = await newAccount('pro');
    const secrets = { cookie: 'session=COOKIE-SECRET-1', password: 'PASSWORD-SECRET-2', forged: 'sk_test_FORGED3' };
    const listed = await api('GET', '/v1/audits?limit=1', {
      key: account.testKey,
      baseUrl: service.url,
      headers: { Cookie: secrets.cookie, 'X-Api-Key': account.testKey },
    });
    assert.equal(listed.status, 200, listed.text);
    const refused = await api('POST', '/v1/audits', {
      key: secrets.forged,
      baseUrl: service.url,
      body: { domain: 'example.com', password: secrets.password },
    });
    assert.equal(refused.status, 401);

    assert.equal(lines.length, 2, lines.join('\n'));
    const [ok, unauthorized] = lines.map((line) => JSON.parse(line));
    assert.equal(ok.requestId, listed.headers.get('x-request-id'));
    assert.equal(ok.method, 'GET');
    assert.equal(ok.route, '/v1/audits');
    assert.equal(ok.status, 200);
    assert.equal(ok.workspaceId, account.workspaceId);
    assert.match(ok.keyId, /\S/);
    assert.equal(typeof ok.durationMs, 'number');
    assert.equal(ok.level, 30);
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.requestId, refused.headers.get('x-request-id'));
    const text = lines.join('\n');
    for (const secret of [account.testKey, secrets.cookie, secrets.password, secrets.forged, 'Bearer'])
      assert.ok(!text.includes(secret), `${secret} is in the log:\n${text}`);
  });

  describe('a worker process', () => {
    let worker: ChildProcess | undefined;
    let output = '';
    const bundlePath = path.join(os.tmpdir(), `observability-bundle-${process.pid}.js`);

    after(async () => {
      if (worker && worker.exitCode === null) {
        const exited = new Promise((resolve) => worker!.once('exit', resolve));
        worker.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(bundlePath, { force: true });
    });

    it("serves /metrics on METRICS_PORT with the Temporal SDK's worker metrics, and logs JSON lines", async () => {
      const stack = await getStack();
      fs.writeFileSync(bundlePath, (await workflowBundle()).code);
      const port = await freePort();
      worker = fork(path.join(root, 'processes', 'worker-main.ts'), [], {
        env: {
          ...process.env,
          DATABASE_URL: stack.config.databaseUrl,
          TEMPORAL_ADDRESS: stack.temporalAddress,
          // Its own queue: it must not take the shared stack's tasks.
          TEMPORAL_TASK_QUEUE: `observability-${process.pid}`,
          WORKFLOW_BUNDLE_PATH: bundlePath,
          METRICS_PORT: String(port),
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      worker.stdout!.on('data', (chunk) => (output += chunk));
      worker.stderr!.on('data', (chunk) => (output += chunk));
      await new Promise<void>((resolve, reject) => {
        worker!.once('message', () => resolve());
        worker!.once('exit', (code) => reject(new Error(`worker exited (${code}):\n${output}`)));
      });
      const url = `http://127.0.0.1:${port}`;
      // The SDK's pollers report once they have polled.
      const exposition = await until(async () => {
        const text = await scrape(url);
        return samples(text, 'temporal_num_pollers').some((s) => s.value > 0) ? text : false;
      }, 60_000);
      assert.equal(promtoolProblems(exposition), '');
      const pollers = samples(exposition, 'temporal_num_pollers');
      assert.ok(
        pollers.some((s) => s.labels.task_queue?.startsWith('observability-')),
        exposition,
      );
      assert.ok(samples(exposition, 'nodejs_eventloop_lag_seconds').length === 1);
      assert.match(exposition, /^# TYPE audit_service_audits_total counter$/m);
      assert.match(exposition, /^# TYPE audit_service_webhook_delivery_duration_seconds histogram$/m);
      assert.equal((await fetch(`${url}/other`)).status, 404);

      await until(() => output.includes('"msg":"worker running"'), 10_000, 'the worker to log that it runs');
      const logged = output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      const running = logged.find((entry) => entry.msg === 'worker running');
      assert.equal(running?.taskQueue, `observability-${process.pid}`, output);
      assert.equal(running?.metricsPort, port);
      assert.ok(
        logged.every((entry) => entry.name === 'worker' && typeof entry.level === 'number'),
        output,
      );
    });
  });
});
