import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import net from 'node:net';
import { freePort } from '../../src/db/embedded';
import { METRICS_PORT_OFFSETS } from '../../src/observability/metrics-config';
import { createLogger } from '../../src/observability/logger';
import type { RunningApi } from '../../processes/api-service';
import { api, getStack, newAccount, startExtraApi, waitForAudit, workflowBundle } from '../support/stack';
import { assertEnvelope } from '../support/envelope';
import { startRoleProcess, type RoleProcess } from '../support/cluster';
import { ensurePromtool, promtoolProblems, samples } from '../support/promtool';
import { startReceiver, until } from '../support/receiver';

const root = path.join(__dirname, '..', '..');
const TOKEN = 'metrics-token-of-the-observability-test-0123456789';

async function scrape(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  return response.text();
}

/** The names of a response's headers but Date, sorted. */
function headerNames(headers: Headers): string[] {
  const names: string[] = [];
  headers.forEach((_value, name) => names.push(name));
  return names.filter((name) => name !== 'date').sort();
}

/** A port P with P to P + `count` - 1 all free on loopback (METRICS_PORT and the ports after it). */
async function freePorts(count: number): Promise<number> {
  const bindable = (port: number) =>
    new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
  for (;;) {
    const first = await freePort();
    if (first + count > 65536) continue;
    let all = true;
    for (let port = first + 1; port < first + count && all; port++) all = await bindable(port);
    if (all) return first;
  }
}

/** An API of the test stack with METRICS_TOKEN and METRICS_PORT set; its internal listener's URL. */
async function apiWithMetrics(): Promise<{ service: RunningApi; internal: string }> {
  const stack = await getStack();
  const port = await freePort();
  const service = await startExtraApi({
    config: { ...stack.config, metricsToken: TOKEN, metricsPort: port - METRICS_PORT_OFFSETS.api },
  });
  assert.equal(service.metricsPort, port);
  return { service, internal: `http://127.0.0.1:${port}` };
}

describe('observability: metrics and logs', function () {
  this.timeout(120_000);

  before(function () {
    if (!ensurePromtool((line) => console.log(`      ${line}`))) this.skip();
  });

  it("the API's internal /metrics passes promtool: requests by route template and status, audits, deliveries, backlog", async () => {
    const stack = await getStack();
    const { internal } = await apiWithMetrics();
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

    // No token on the internal listener: its port is for Prometheus alone.
    const exposition = await scrape(internal);
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

  it('answers /metrics on the public port only with METRICS_TOKEN, and as an unknown route otherwise', async () => {
    const { service, internal } = await apiWithMetrics();
    const unknownRoute = await api('GET', '/metrics-elsewhere', { baseUrl: service.url });
    assertEnvelope(unknownRoute, 404, 'not_found');
    // Without METRICS_TOKEN (the shared stack): 404, with any token or none.
    for (const headers of [{}, { Authorization: `Bearer ${TOKEN}` }] as Array<Record<string, string>>)
      assertEnvelope(await api('GET', '/metrics', { headers }), 404, 'not_found', /^no route for GET \/metrics$/);
    // With it: every credential but the token gets the same 404 as a path that does not exist.
    for (const authorization of [
      undefined,
      'Bearer ',
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}X`,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN} ${TOKEN}`,
      TOKEN,
    ]) {
      const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization };
      const refused = await api('GET', '/metrics', { headers, baseUrl: service.url });
      assertEnvelope(refused, 404, 'not_found', /^no route for GET \/metrics$/);
      assert.deepEqual(
        headerNames(refused.headers),
        headerNames(unknownRoute.headers),
        `${authorization}: the headers of an unknown route's 404`,
      );
      // A browser asking for it gets the dashboard's not-found page, as for any unknown path.
      const page = await fetch(`${service.url}/metrics`, { headers: { ...headers, Accept: 'text/html' } });
      assert.equal(page.status, 404);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await page.text(), /Page not found/);
    }
    for (const scheme of ['Bearer', 'bearer']) {
      const exposition = await scrape(service.url, { Authorization: `${scheme} ${TOKEN}` });
      assert.match(exposition, /^# TYPE audit_service_http_requests_total counter$/m);
    }
    const withToken = await fetch(`${service.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(withToken.headers.get('cache-control'), 'no-store');
    assert.match(withToken.headers.get('x-request-id') ?? '', /^req_/);
    // The internal listener takes no token, and serves nothing else.
    assert.match(await scrape(internal), /^# TYPE audit_service_audits_backlog gauge$/m);
    assert.equal((await fetch(`${internal}/healthz`)).status, 404);
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

  describe('npm start with METRICS_PORT and METRICS_TOKEN', function () {
    this.timeout(300_000);
    let machine: RoleProcess | undefined;
    let dataDir: string | undefined;

    after(async () => {
      await machine?.stop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it("serves the API's and the audit worker's /metrics on ports of their own, the public port's with the token", async () => {
      const stack = await getStack();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'observability-start-'));
      const base = await freePorts(4);
      machine = await startRoleProcess('api,worker', {
        DATABASE_URL: stack.config.databaseUrl!,
        TEMPORAL_ADDRESS: stack.temporalAddress,
        // Its own queue, and no reconciling: it must neither take the shared stack's tasks nor move them to its queue.
        TEMPORAL_TASK_QUEUE: `observability-start-${process.pid}`,
        AUDIT_RECONCILE_INTERVAL_MS: String(24 * 3600_000),
        BROWSER_STAGE: 'off',
        METRICS_PORT: String(base),
        METRICS_TOKEN: TOKEN,
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
      });
      const at = (offset: number) => `http://127.0.0.1:${base + offset}`;
      // The API (the supervisor process itself) on METRICS_PORT + 3: its backlog gauge, no Temporal worker.
      const apiExposition = await scrape(at(METRICS_PORT_OFFSETS.api));
      assert.equal(promtoolProblems(apiExposition), '');
      assert.deepEqual(
        samples(apiExposition, 'audit_service_audits_backlog')
          .map((s) => s.labels.status)
          .sort(),
        ['queued', 'running'],
      );
      assert.deepEqual(samples(apiExposition, 'temporal_num_pollers'), []);
      // The audit worker (a child process) on METRICS_PORT itself: its pollers, no backlog.
      const workerExposition = await until(async () => {
        const text = await scrape(at(METRICS_PORT_OFFSETS.audits));
        return samples(text, 'temporal_num_pollers').some((s) =>
          s.labels.task_queue?.startsWith('observability-start-'),
        )
          ? text
          : false;
      }, 60_000);
      assert.deepEqual(samples(workerExposition, 'audit_service_audits_backlog'), []);
      // No report worker in this process tree: nothing on + 1.
      await assert.rejects(fetch(`${at(METRICS_PORT_OFFSETS.reports)}/metrics`));
      // The public port: the token only.
      assertEnvelope(await api('GET', '/metrics', { baseUrl: machine.url }), 404, 'not_found');
      const scraped = await scrape(machine.url, { Authorization: `Bearer ${TOKEN}` });
      assert.equal(samples(scraped, 'audit_service_audits_backlog').length, 2);
      assert.match(machine.output(), new RegExp(`API metrics on 127\\.0\\.0\\.1:${base + 3} `));
      assert.doesNotMatch(machine.output(), /metrics not served/);
      assert.ok(!machine.output().includes(TOKEN), 'the token is never logged');
    });
  });
});
