import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import Koa from 'koa';
import { createAccount, createApiKey } from '../src/accounts/repository';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createDb, migrateLatest } from '../src/db/knex';
import { startApi } from '../processes/api-service';
import { superviseWorker, type SupervisedWorker } from '../processes/worker-process';
import { serveGeneratedSite } from './generated-site';
import { startTestInfrastructure } from '../test/support/infrastructure';

/**
 * `npm run bench`: the service's speed on this machine, on a fresh Temporal dev server and Postgres.
 * Prints trigger latency, trigger-to-completed latency (test mode) and authenticated GET throughput
 * beside a bare Koa handler measured in the same run (the ratio is the figure to watch).
 */
const exec = promisify(execFile);
const TRIGGERS = Number(process.env.BENCH_TRIGGERS || 200);
const COMPLETIONS = Number(process.env.BENCH_COMPLETIONS || 50);
const LOAD_SECONDS = Number(process.env.BENCH_SECONDS || 5);
const CONNECTIONS = 16;
const LIVE_ACCOUNTS = Number(process.env.BENCH_LIVE_ACCOUNTS || 40);
const WEBHOOKS = 10;
const DELIVERY_AUDITS = Number(process.env.BENCH_DELIVERY_AUDITS || 30);

async function main(): Promise<void> {
  const infra = await startTestInfrastructure(() => undefined);
  // Live triggers in the throughput section audit a local site.
  process.env.OUTBOUND_ALLOW_CIDRS = '127.0.0.0/8';
  // This bench starts no browser worker (bench:browser measures the stage): with the stage on, its
  // first live audit would wait out BROWSER_STAGE_TIMEOUT_MS for a render nobody makes.
  process.env.BROWSER_STAGE = 'off';
  const config = loadConfig({ ...process.env, PORT: '0' });
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  const temporalAddress = process.env.TEST_TEMPORAL_ADDRESS!;
  const db = createDb(databaseUrl, { max: 20 });
  await migrateLatest(db);
  // As `npm start` runs it: the worker in its own process, the API in this one.
  // Test-mode deliveries of the webhook section go to this local receiver.
  const receiver = await startBenchReceiver();
  process.env.TEST_WEBHOOK_MOCK_URL = receiver.url;
  const startWorkerProcess = () =>
    superviseWorker(
      { ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress },
      supervisorLog,
    ).then(untilReady);
  let worker = await startWorkerProcess();
  const startReportWorkerProcess = () =>
    superviseWorker(
      { ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress, WORKER_KIND: 'reports' },
      supervisorLog,
    ).then(untilReady);
  let reportWorker = await startReportWorkerProcess();
  const service = await startApi({
    config,
    db,
    databaseUrl,
    clock: systemClock,
    temporalAddress,
    workers: () => ({ worker: worker.state(), report_worker: reportWorker.state() }),
    log: () => undefined,
  });
  const now = new Date();
  const account = await createAccount(db, { tier: 'pro', now });
  const { key } = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'test', now });
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const trigger = async (domain: string) => {
    const response = await fetch(`${service.url}/v1/audits`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ domain }),
    });
    if (response.status !== 202) throw new Error(`trigger answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { audit_id: string };
  };

  try {
    for (let i = 0; i < 10; i++) await trigger(`https://warmup-${i}.example.com`);

    const triggerMs: number[] = [];
    for (let i = 0; i < TRIGGERS; i++) {
      const started = performance.now();
      await trigger(`https://trigger-${i}.example.com`);
      triggerMs.push(performance.now() - started);
    }
    await settle(db);
    report('trigger latency (test mode, back-to-back)', triggerMs);

    const completedMs: number[] = [];
    const idleTriggerMs: number[] = [];
    let lastAuditId = '';
    const completedIds: string[] = [];
    for (let i = 0; i < COMPLETIONS; i++) {
      const started = performance.now();
      const { audit_id } = await trigger(`https://complete-${i}.example.com`);
      idleTriggerMs.push(performance.now() - started);
      for (;;) {
        const response = await fetch(`${service.url}/v1/audits/${audit_id}`, { headers: auth });
        const body = (await response.json()) as { status: string };
        if (body.status === 'completed') break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      completedMs.push(performance.now() - started);
      lastAuditId = audit_id;
      completedIds.push(audit_id);
    }
    report('trigger latency (test mode, no audit in flight)', idleTriggerMs);
    report('trigger-to-completed (test mode, polled every 5 ms)', completedMs);
    await reportFigures(service.url, auth, completedIds.slice(0, 20));

    await tenPageAudit(db, service.url);
    await largeAudit(db, service.url);
    console.log(
      `peak RSS of the worker process so far (test-mode audits, 10- and 500-page live audits): ${peakRssMiB(worker.pid())} MiB`,
    );
    const [{ reports }] = await db('audit_reports').count({ reports: '*' });
    console.log(
      `peak RSS of the report worker process so far (${reports} reports rendered): ${peakRssMiB(reportWorker.pid())} MiB`,
    );

    // The workers are paused here so the figures are the API's transaction (row lock, limit checks,
    // insert, workflow start) rather than the crawls and renders the triggers cause; they run afterwards.
    await worker.stop();
    await reportWorker.stop();
    const closeSite = await liveTriggerThroughput(db, service.url);
    worker = await startWorkerProcess();
    reportWorker = await startReportWorkerProcess();
    await settle(db);
    await closeSite();

    await deliveryFigures(db, service.url, key, receiver);

    const stored = await db('audits').where({ id: lastAuditId }).first('result_json');
    const bare = await bareKoa(stored.result_json as string);
    const bareResult = await load(`${bare.url}/v1/audits/x`, '-');
    const getResult = await load(`${service.url}/v1/audits/${lastAuditId}`, auth.authorization);
    await bare.close();
    const line = (name: string, r: LoadResult) =>
      console.log(
        `${name.padEnd(44)} ${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms   errors ${r.errors}`,
      );
    console.log(`\nGET throughput (${CONNECTIONS} connections, ${LOAD_SECONDS} s, load from a separate process)`);
    line('bare Koa handler, same bytes (baseline)', bareResult);
    line('GET /v1/audits/{id} (auth + usage + row)', getResult);
    console.log(`ratio: ${((getResult.rps / bareResult.rps) * 100).toFixed(1)}% of bare Koa`);
    console.log(`\npeak RSS of the worker process over the whole run: ${peakRssMiB(worker.pid())} MiB`);
    const [{ rendered }] = await db('audit_reports').count({ rendered: '*' });
    console.log(
      `peak RSS of the report worker process since its restart (${rendered} reports in all): ${peakRssMiB(reportWorker.pid())} MiB`,
    );
  } finally {
    await service.stop();
    await worker.stop();
    await reportWorker.stop();
    await receiver.close();
    await db.destroy();
    await infra.stop();
  }
}

/**
 * Live triggers go through the account row lock, the burst, first-free and quota checks and the
 * workflow start in one transaction. Many accounts in parallel show the throughput; one account's
 * concurrent triggers show the serialization cost.
 */
async function liveTriggerThroughput(db: ReturnType<typeof createDb>, apiUrl: string): Promise<() => Promise<void>> {
  const site = http.createServer((req, res) => {
    res
      .writeHead(200, { 'content-type': req.url === '/robots.txt' ? 'text/plain' : 'text/html' })
      .end(req.url === '/robots.txt' ? '' : '<!doctype html><title>bench</title>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const now = new Date();
  const keys: string[] = [];
  for (let i = 0; i < LIVE_ACCOUNTS; i++) {
    const account = await createAccount(db, { tier: 'enterprise', customQuota: 100_000, now });
    keys.push((await createApiKey(db, { workspaceId: account.workspace_id, mode: 'live', now })).key);
  }
  const triggerLive = async (key: string) => {
    const started = performance.now();
    const response = await fetch(`${apiUrl}/v1/audits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: origin }),
    });
    await response.arrayBuffer();
    if (response.status !== 202) throw new Error(`live trigger answered ${response.status}`);
    return performance.now() - started;
  };
  // 10 triggers per account stay within the burst limit; 16 requests in flight across accounts.
  const jobs = keys.flatMap((key) => Array.from({ length: 10 }, () => key));
  const latencies: number[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < jobs.length) latencies.push(await triggerLive(jobs[next++]));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\nlive trigger throughput (${LIVE_ACCOUNTS} accounts x 10, 16 in flight, worker paused): ${(jobs.length / seconds).toFixed(0)} triggers/s`,
  );
  report("  latency under the limits' locking", latencies);
  const contended = await createAccount(db, { tier: 'enterprise', customQuota: 100_000, now });
  const contendedKey = (await createApiKey(db, { workspaceId: contended.workspace_id, mode: 'live', now })).key;
  const oneAccount = await Promise.all(Array.from({ length: 10 }, () => triggerLive(contendedKey)));
  report('  10 concurrent triggers on ONE account (serialized)', oneAccount);
  // The site stays up until the queued audits have crawled it.
  return () => new Promise((resolve) => site.close(() => resolve()));
}

/** A live team-tier audit of a generated 500-page site through the worker process. */
async function largeAudit(db: ReturnType<typeof createDb>, apiUrl: string): Promise<void> {
  const site = await serveGeneratedSite(500);
  const now = new Date();
  const account = await createAccount(db, { tier: 'team', now });
  const { key } = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'live', now });
  const started = performance.now();
  const response = await fetch(`${apiUrl}/v1/audits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ domain: site.origin }),
  });
  const { audit_id } = (await response.json()) as { audit_id: string };
  let pages = 0;
  for (;;) {
    const row = await db('audits').where({ id: audit_id }).first('status', 'result_json');
    if (row.status === 'completed') {
      pages = (JSON.parse(row.result_json) as { crawl: { pages_crawled: number } }).crawl.pages_crawled;
      break;
    }
    if (row.status === 'failed') throw new Error('500-page audit failed');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `live audit of a ${pages}-page site, trigger to completed: ${seconds.toFixed(2)} s = ${(pages / seconds).toFixed(0)} pages/s end to end`,
  );
  console.log(
    `  its PDF report rendered ahead and stored ${(await msUntilReportStored(db, audit_id)).toFixed(0)} ms after completion`,
  );
  await site.close();
}

/** From now (the audit just completed) until its report row exists: the eager render's latency. */
async function msUntilReportStored(db: ReturnType<typeof createDb>, auditId: string): Promise<number> {
  const started = performance.now();
  while (!(await db('audit_reports').where({ audit_id: auditId }).first('audit_id'))) {
    if (performance.now() - started > 30_000) throw new Error(`no report for ${auditId} after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}

/**
 * GET /audits/{id}/pdf on completed test audits: the first call starts the render (ReportWorkflow)
 * and waits for it; the second finds the stored report and only signs a link; then the download.
 */
async function reportFigures(apiUrl: string, auth: Record<string, string>, auditIds: string[]): Promise<void> {
  const first: number[] = [];
  const again: number[] = [];
  const downloads: number[] = [];
  let bytes = 0;
  for (const auditId of auditIds) {
    const ask = async () => {
      const started = performance.now();
      const response = await fetch(`${apiUrl}/v1/audits/${auditId}/pdf`, { headers: auth });
      if (response.status !== 200) throw new Error(`GET pdf answered ${response.status}: ${await response.text()}`);
      const { url } = (await response.json()) as { url: string };
      return { ms: performance.now() - started, url };
    };
    first.push((await ask()).ms);
    const { ms, url } = await ask();
    again.push(ms);
    const started = performance.now();
    bytes = (await (await fetch(url)).arrayBuffer()).byteLength;
    downloads.push(performance.now() - started);
  }
  report('GET /audits/{id}/pdf, first call (renders the sample report)', first);
  report('GET /audits/{id}/pdf, stored report (signs a link)', again);
  report(`signed link download (${(bytes / 1024).toFixed(0)} KiB)`, downloads);
}

/** A worker restart would skew the figures: say so. */
/** Measurements start with both workers serving (superviseWorker does not wait for them). */
async function untilReady(worker: SupervisedWorker): Promise<SupervisedWorker> {
  await worker.ready();
  return worker;
}

function supervisorLog(message: string): void {
  console.log(`  (supervisor: ${message})`);
}

/** Peak resident memory of a process (Linux VmHWM), in MiB. */
function peakRssMiB(pid: number | undefined): string {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
    return (kb / 1024).toFixed(0);
  } catch {
    return 'n/a';
  }
}

/** A live audit of a 10-page local site, from the trigger call until the API serves it completed. */
async function tenPageAudit(db: ReturnType<typeof createDb>, apiUrl: string): Promise<void> {
  const pageHtml = (i: number) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ten page site, page number ${i}</title></head><body><h1>Page ${i}</h1>` +
    Array.from({ length: 10 }, (_, k) => `<a href="/p${k}">Page ${k} of the site</a>`).join(' ') +
    '</body></html>';
  const site = http.createServer((req, res) => {
    const match = /^\/(p(\d))?$/.exec(req.url ?? '');
    if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end('');
    else if (match) res.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(Number(match[2] ?? 0)));
    else
      res
        .writeHead(404, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Not found</title><h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const now = new Date();
  const account = await createAccount(db, { tier: 'pro', now });
  const { key } = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'live', now });
  const samples: number[] = [];
  const reportSamples: number[] = [];
  let pages = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const response = await fetch(`${apiUrl}/v1/audits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: origin }),
    });
    const { audit_id } = (await response.json()) as { audit_id: string };
    for (;;) {
      const row = await db('audits').where({ id: audit_id }).first('status', 'result_json');
      if (row.status === 'completed') {
        pages = (JSON.parse(row.result_json) as { crawl: { pages_crawled: number } }).crawl.pages_crawled;
        break;
      }
      if (row.status === 'failed') throw new Error(`10-page audit failed`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    samples.push(performance.now() - started);
    reportSamples.push(await msUntilReportStored(db, audit_id));
  }
  report(`live audit of a ${pages}-page local site, trigger to completed`, samples);
  report('  its PDF report rendered ahead, completed to stored', reportSamples);
  await new Promise((resolve) => site.close(resolve));
}

interface BenchReceiver {
  url: string;
  receipts: Array<{ auditId: string; at: number }>;
  close(): Promise<void>;
}

async function startBenchReceiver(): Promise<BenchReceiver> {
  const receipts: BenchReceiver['receipts'] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receipts.push({ auditId: String(req.headers['x-service-audit-id']), at: Date.now() });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    receipts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Webhook delivery (test mode: every delivery goes to the local receiver via TEST_WEBHOOK_MOCK_URL):
 * latency from an audit's completion to its first attempt arriving, one audit at a time with one
 * webhook; then deliveries per second for a burst of audits on a workspace with 10 webhooks.
 */
async function deliveryFigures(
  db: ReturnType<typeof createDb>,
  apiUrl: string,
  key: string,
  receiver: BenchReceiver,
): Promise<void> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const addWebhook = async (i: number) => {
    const response = await fetch(`${apiUrl}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.url}?webhook=${i}`, events: ['audit.completed'] }),
    });
    if (response.status !== 201) throw new Error(`webhook creation answered ${response.status}`);
  };
  const trigger = async (domain: string) => {
    const response = await fetch(`${apiUrl}/v1/audits`, { method: 'POST', headers, body: JSON.stringify({ domain }) });
    return ((await response.json()) as { audit_id: string }).audit_id;
  };
  const waitFor = async (count: number) => {
    const deadline = Date.now() + 120_000;
    while (receiver.receipts.length < count && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
  };

  await addWebhook(0);
  receiver.receipts.length = 0;
  const latencies: number[] = [];
  for (let i = 0; i < 20; i++) {
    const auditId = await trigger(`https://latency-${i}.example.com`);
    await waitFor(i + 1);
    const row = await db('audits').where({ id: auditId }).first('completed_at');
    latencies.push(receiver.receipts[i].at - new Date(row.completed_at).getTime());
  }
  report('\nwebhook: audit completion to first delivery attempt', latencies);

  for (let i = 1; i < WEBHOOKS; i++) await addWebhook(i);
  receiver.receipts.length = 0;
  const started = Date.now();
  for (let i = 0; i < DELIVERY_AUDITS; i++) await trigger(`https://deliver-${i}.example.com`);
  const expected = WEBHOOKS * DELIVERY_AUDITS;
  await waitFor(expected);
  const seconds = (Math.max(...receiver.receipts.map((r) => r.at)) - started) / 1000;
  console.log(
    `webhook throughput (${DELIVERY_AUDITS} audits x ${WEBHOOKS} webhooks, ${receiver.receipts.length}/${expected} received): ${(receiver.receipts.length / seconds).toFixed(0)} deliveries/s`,
  );
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, authorization: string): Promise<LoadResult> {
  const tsx = path.join(__dirname, '..', 'node_modules', '.bin', 'tsx');
  const { stdout } = await exec(tsx, [
    path.join(__dirname, 'load.ts'),
    url,
    authorization,
    String(CONNECTIONS),
    String(LOAD_SECONDS),
  ]);
  return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
}

/** The baseline: Koa answering the same audit JSON bytes, with no auth, limits or lookup. */
async function bareKoa(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Waits until the triggered audits have finished so they do not load the next measurement. */
async function settle(db: ReturnType<typeof createDb>): Promise<void> {
  for (;;) {
    const [{ count }] = await db('audits')
      .whereIn('status', ['queued', 'running'])
      .count<{ count: string }[]>('id as count');
    if (Number(count) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function report(name: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  console.log(`${name.padEnd(52)} n=${sorted.length}  p50 ${pick(0.5).toFixed(1)} ms  p99 ${pick(0.99).toFixed(1)} ms`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
