import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { api, getStack, newAccount, type TestAccount } from '../support/stack';
import { until } from '../support/receiver';
import { childProcesses, isAlive, startServiceProcess, type ServiceProcess } from '../support/processes';

/**
 * `npm start` as a user runs it (its own dev server on a SQLite file, both workers, the API), on the
 * run's Postgres: its children are killed with SIGKILL and must come back by themselves, while the
 * API keeps answering reads and /healthz says what is down.
 */
describe('npm start supervision (real processes)', function () {
  this.timeout(180_000);

  let service: ServiceProcess;
  let dataDir: string;
  let account: TestAccount;
  let site: http.Server;
  let siteOrigin: string;
  const sitePageRequests: string[] = [];
  const seenPids = new Set<number>();

  const health = async () => {
    const response = await api('GET', '/healthz', { baseUrl: service.url });
    return { status: response.status, body: response.body };
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const healthUntil = (
    predicate: (h: Awaited<ReturnType<typeof health>>) => boolean,
    timeoutMs: number,
    what: string,
  ) =>
    until(
      async () => {
        const h = await health().catch(() => null);
        if (h && predicate(h)) return h;
        await pause(200);
        return false;
      },
      timeoutMs,
      what,
    );
  const child = (match: (c: ReturnType<typeof childProcesses>[number]) => boolean) => {
    const found = childProcesses(service.pid).find(match);
    if (found) seenPids.add(found.pid);
    return found;
  };
  const auditWorker = () => child((c) => c.workerKind === 'audits');
  const reportWorker = () => child((c) => c.workerKind === 'reports');
  const devServer = () => child((c) => c.command.includes('start-dev'));
  const listenOn = (port: number) =>
    new Promise<net.Server | false>((resolve) => {
      const server = net.createServer((socket) => socket.destroy());
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  const auditStatus = async (auditId: string) =>
    (await (await getStack()).db('audits').where({ id: auditId }).first('status'))?.status as string | undefined;

  before(async function () {
    await getStack(); // migrates the run's database
    account = await newAccount('pro');
    // A slow site: each page answers after 400 ms, so a live crawl spans the dev server's death.
    site = http.createServer((req, res) => {
      const match = /^\/(p\d+)?$/.exec(req.url ?? '');
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('');
      if (!match)
        return void res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Not found</title>');
      sitePageRequests.push(req.url ?? '');
      const links = Array.from({ length: 8 }, (_, k) => `<a href="/p${k}">Page ${k} of the slow site</a>`).join(' ');
      setTimeout(
        () =>
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(`<!doctype html><html lang="en"><title>Slow page ${req.url}</title><body>${links}</body></html>`),
        400,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'supervision-test-'));
    service = await startServiceProcess({
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATA_DIR: dataDir,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      // A crawl whose result was lost with the dev server is restarted after 5 s instead of 60 s.
      AUDIT_HEARTBEAT_TIMEOUT_MS: '5000',
      SERVICE_ROLES: 'api,worker,reports',
      // No browser worker here: live audits must not wait for a browser stage nobody renders.
      BROWSER_STAGE: 'off',
    });
    const t0 = Date.now();
    const up = await healthUntil(
      (h) => h.status === 200,
      150_000,
      `npm start to be healthy:\n${service.output()}`,
    ).catch((err) => {
      throw new Error(`${err.message}\n${service.output()}`);
    });
    console.log(`      npm start healthy in ${Date.now() - t0} ms`);
    assert.deepEqual(up.body, {
      status: 'ok',
      components: { api: 'up', temporal: 'up', worker: 'up', report_worker: 'up' },
    });
  });

  after(async function () {
    if (service && isAlive(service.pid)) {
      service.signalGroup('SIGKILL');
      for (const pid of seenPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await new Promise((resolve) => site?.close(resolve));
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps serving reads while the audit worker crash-loops, reports it in /healthz, and recovers', async function () {
    const { body: first } = await api('POST', '/v1/audits', {
      key: account.testKey,
      baseUrl: service.url,
      body: { domain: 'https://crash-loop.example.com' },
    });
    await until(
      async () => (await auditStatus(first.audit_id)) === 'completed' || (await pause(100)),
      60_000,
      'the first audit to complete',
    );

    // Kill every new audit worker process at once, three times: it never gets to serve.
    const killed: number[] = [];
    while (killed.length < 3) {
      const worker = await until(
        () => {
          const found = auditWorker();
          return found && !killed.includes(found.pid) ? found : false;
        },
        60_000,
        'a new audit worker process',
      );
      process.kill(worker.pid, 'SIGKILL');
      killed.push(worker.pid);

      const down = await healthUntil((h) => h.status === 503, 30_000, '/healthz to report the worker down');
      assert.notEqual(down.body.components.worker, 'up');
      assert.equal(down.body.components.api, 'up');
      assert.equal(down.body.components.temporal, 'up');
      assert.equal(down.body.error.code, 'service_unavailable');
      assert.match(down.body.error.message, /worker is (restarting|starting)/);
      const read = await api('GET', `/v1/audits/${first.audit_id}`, { key: account.testKey, baseUrl: service.url });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.audit_id, first.audit_id);
      const list = await api('GET', '/v1/audits?limit=5', { key: account.testKey, baseUrl: service.url });
      assert.equal(list.status, 200, list.text);
    }
    // The back-off doubled between the crashes instead of giving up.
    const restarts =
      service.output().match(/^\{.*"name":"audit-service".*"msg":"worker [^"]*\(SIGKILL\)[^"]*; restarting in .*$/gm) ??
      [];
    assert.deepEqual(
      restarts.map((line) => /restarting in ([^"]*)"/.exec(line)![1]),
      ['1 s', '2 s', '4 s'],
      service.output(),
    );

    const recovered = await healthUntil((h) => h.status === 200, 60_000, 'the worker to come back');
    assert.equal(recovered.body.components.worker, 'up');
    assert.ok(!killed.includes(auditWorker()!.pid));
    const { status, body: next } = await api('POST', '/v1/audits', {
      key: account.testKey,
      baseUrl: service.url,
      body: { domain: 'https://after-crash-loop.example.com' },
    });
    assert.equal(status, 202);
    await until(
      async () => (await auditStatus(next.audit_id)) === 'completed' || (await pause(100)),
      60_000,
      'an audit after the recovery to complete',
    );
  });

  it('restarts a killed Temporal dev server with its state: an audit under way completes and triggers work again', async function () {
    const { body: audit } = await api('POST', '/v1/audits', {
      key: account.liveKey,
      baseUrl: service.url,
      body: { domain: siteOrigin },
    });
    assert.equal(audit.status, 'queued');
    await until(() => sitePageRequests.length >= 2, 30_000, 'the crawl to be under way');

    const server = devServer()!;
    process.kill(server.pid, 'SIGKILL');
    // Hold its port for a while: the restarts fail until it is released, so the outage is visible.
    // The port is free once the process is fully gone; the first restart comes a second after that.
    const temporalPort = Number(/Temporal dev server at 127\.0\.0\.1:(\d+)/.exec(service.output())![1]);
    const blocker = await until(() => listenOn(temporalPort), 10_000, "the dead dev server's port to be free");
    // A worker (re)started while Temporal is unreachable waits for it instead of crash-looping.
    const outageLogFrom = service.output().length;
    process.kill(reportWorker()!.pid, 'SIGKILL');
    const outageLog = () => service.output().slice(outageLogFrom);
    try {
      const down = await healthUntil(
        (h) => h.status === 503 && h.body.components.temporal === 'down',
        30_000,
        '/healthz to report Temporal down',
      );
      assert.equal(down.body.components.api, 'up');
      const read = await api('GET', `/v1/audits/${audit.audit_id}`, { key: account.liveKey, baseUrl: service.url });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.audit_id, audit.audit_id);
      await until(
        async () =>
          /"name":"report worker".*"msg":"Temporal at [^"]* is not available/.test(outageLog()) || (await pause(100)),
        60_000,
        'the restarted report worker to wait for Temporal',
      );
      await until(
        async () => /Temporal dev server failed to start/.test(outageLog()) || (await pause(100)),
        60_000,
        'a failed restart attempt',
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }

    const t0 = Date.now();
    const up = await healthUntil((h) => h.status === 200, 60_000, 'the dev server to be restarted');
    console.log(`      healthy again ${Date.now() - t0} ms after the port was released`);
    assert.deepEqual(up.body.components, { api: 'up', temporal: 'up', worker: 'up', report_worker: 'up' });
    assert.ok(devServer()!.pid !== server.pid);
    const workerRestarts =
      outageLog().match(/^\{.*"name":"audit-service".*"msg":"(report )?worker [^"]*restarting in.*$/gm) ?? [];
    assert.equal(
      workerRestarts.length,
      1,
      `only the kill: the new report worker waited for Temporal\n${workerRestarts.join('\n')}`,
    );
    assert.match(workerRestarts[0], /report worker exited \(SIGKILL\)/);

    await until(
      async () =>
        !['queued', 'running'].includes((await auditStatus(audit.audit_id)) ?? 'queued') || (await pause(200)),
      90_000,
      'the audit under way to finish',
    );
    const done = await api('GET', `/v1/audits/${audit.audit_id}`, { key: account.liveKey, baseUrl: service.url });
    assert.equal(done.body.status, 'completed', done.text);
    assert.equal(done.body.crawl.pages_crawled, 9);

    const trigger = await api('POST', '/v1/audits', {
      key: account.testKey,
      baseUrl: service.url,
      body: { domain: 'https://after-temporal-restart.example.com' },
    });
    assert.equal(trigger.status, 202, trigger.text);
    await until(
      async () => (await auditStatus(trigger.body.audit_id)) === 'completed' || (await pause(100)),
      60_000,
      'an audit triggered after the restart to complete',
    );
  });

  it('stops every process it started on SIGTERM to its process group', async function () {
    await healthUntil((h) => h.status === 200, 60_000, 'every process to be up');
    const children = childProcesses(service.pid);
    assert.ok(
      children.some((c) => c.workerKind === 'audits') &&
        children.some((c) => c.workerKind === 'reports') &&
        children.some((c) => c.command.includes('start-dev')),
    );
    service.signalGroup('SIGTERM');
    assert.equal(await service.exited, 0, service.output());
    for (const c of children) await until(() => !isAlive(c.pid), 15_000, `${c.command} (${c.pid}) to exit`);
    assert.doesNotMatch(
      service.output().split('stopping…')[1] ?? '',
      /restarting in/,
      'nothing was restarted during the shutdown',
    );
  });
});
