import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { createAccount } from '../src/accounts/repository';
import { syntheticAudit } from '../src/audits/synthetic';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createDb, migrateLatest } from '../src/db/knex';
import { saveBranding } from '../src/reports/branding-repository';
import { createShare } from '../src/shares/service';
import { startApi } from '../processes/api-service';
import { startTestInfrastructure } from '../test/support/infrastructure';
import { tinyPng } from '../test/support/pdf';
import type { Load, Viewed } from './share-viewers';

/**
 * `npm run bench:shares`: a share link's page and badge under 50 concurrent
 * viewers on loopback (issue 25: page p99 under 100 ms, badge p99 under 20 ms), for a completed pro
 * audit with its synthetic findings (the same audit every run) and a branded workspace (logo
 * inlined). The viewers (bench/share-viewers.ts) run in a worker thread of their own, as other
 * machines would, so their own work does not hold up the server's event loop. Each viewer asks again
 * as soon as it has its answer; after each viewer's first, connecting request (timed apart) and a
 * warm-up of 5,000 requests at full load, 10,000 are measured: times per request, p50 and p99 over
 * all viewers. The first request of the page renders it (and is timed alone); the rest are served
 * from what the service keeps rendered, after the link's check.
 */
const VIEWERS = Number(process.env.BENCH_VIEWERS || 50);
const REQUESTS_PER_VIEWER = Number(process.env.BENCH_REQUESTS || 200);
// The viewers' own module: a thread that loads only it, not the service, so its heap and collections stay small.
const VIEWERS_MODULE = path.join(__dirname, 'share-viewers.ts');
// One audit id for every run (each run has a database of its own).
const AUDIT_ID = 'aud_BENCHshares0000000000';
// The synthetic findings are drawn from the workspace id and domain; each run's account is new, so
// this stands in for its id in the draw (the JSON holds no workspace id): 44 findings on 137 pages,
// a report of the size the first figures were taken on.
const SEED_WORKSPACE = 'ws_BENCHshares0000000013';

async function main(): Promise<void> {
  const infra = await startTestInfrastructure(() => undefined);
  const config = loadConfig({ ...process.env, PORT: '0' });
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  const db = createDb(databaseUrl, { max: 20 });
  await migrateLatest(db);
  const service = await startApi({
    config,
    db,
    databaseUrl,
    clock: systemClock,
    temporalAddress: process.env.TEST_TEMPORAL_ADDRESS!,
    workers: () => ({}),
    log: () => undefined,
    accessLog: pino({ level: 'silent' }),
  });
  try {
    const url = await seedShare(db, service.url);
    const started = performance.now();
    await (await fetch(url)).arrayBuffer();
    console.log(`share page, first request (rendered): ${(performance.now() - started).toFixed(1)} ms`);
    const page = await load(url, {});
    console.log(`share page (${(page.bytes / 1024).toFixed(0)} KiB): ${summary(page)}`);
    const badge = await load(`${url}/badge.svg`, {});
    console.log(`badge: ${summary(badge)}`);
    const etag = (await fetch(`${url}/badge.svg`)).headers.get('etag')!;
    const revalidated = await load(`${url}/badge.svg`, { 'If-None-Match': etag }, 304);
    console.log(`badge revalidated (304): ${summary(revalidated)}`);
  } finally {
    await service.stop();
    await db.destroy();
    await infra.stop();
  }
}

/** A pro account with its branding, one completed live audit, and a link to it. */
async function seedShare(db: ReturnType<typeof createDb>, baseUrl: string): Promise<string> {
  const now = new Date();
  const account = await createAccount(db, { tier: 'pro', customQuota: null, now });
  const auditId = AUDIT_ID;
  const domain = 'https://bench-shares.example.com';
  const at = now.toISOString();
  const result = syntheticAudit({
    auditId,
    workspaceId: SEED_WORKSPACE,
    domain,
    tier: 'pro',
    createdAt: at,
    startedAt: at,
    completedAt: at,
  });
  await db('audits').insert({
    id: auditId,
    workspace_id: account.workspace_id,
    account_id: account.account_id,
    mode: 'live',
    domain,
    site_key: 'bench-shares.example.com',
    tier: 'pro',
    status: 'completed',
    score: result.score,
    grade: result.grade,
    charged: false,
    result_json: JSON.stringify(result),
    created_at: at,
    completed_at: at,
  });
  const scope = { workspaceId: account.workspace_id, mode: 'live' as const };
  await saveBranding(
    db,
    scope,
    { displayName: 'Acme Digital', primaryColor: '#0b6e4f', logo: tinyPng(200, 60), contactLine: 'hello@acme.example' },
    now,
  );
  const { url } = await createShare(
    { db, clock: systemClock, baseUrl: () => baseUrl },
    { scope, usage: { tier: 'pro' } },
    auditId,
    {},
  );
  console.log(`audit: ${result.findings.length} findings, ${result.crawl.pages_crawled} pages`);
  return url;
}

/**
 * The viewers, in a worker thread: warmed up, then VIEWERS at once, REQUESTS_PER_VIEWER each. With
 * the server's CPU time a request (its main thread only, so not the viewers'): a figure that a busy
 * machine inflates far less than the times.
 */
async function load(url: string, headers: Record<string, string>, status = 200) {
  let cpu = process.threadCpuUsage();
  // How long the server's event loop was held at a stretch (its work, or a garbage collection): with
  // 50 requests always waiting, one hold of N ms adds N ms to each of them.
  const holds = monitorEventLoopDelay({ resolution: 1 });
  const result = await new Promise<Viewed>((resolve, reject) => {
    const worker = new Worker(VIEWERS_MODULE, {
      workerData: { url, headers, status, viewers: VIEWERS, requestsPerViewer: REQUESTS_PER_VIEWER } satisfies Load,
    });
    worker.on('message', (message: { measuring: true } | Viewed) => {
      if (!('measuring' in message)) return resolve(message);
      // The warm-up is over: only the measured requests count from here.
      cpu = process.threadCpuUsage();
      holds.enable();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the viewers' thread exited (${code}) without figures`)));
  });
  const used = process.threadCpuUsage(cpu);
  holds.disable();
  const loopHeldMs = { p99: holds.percentile(99) / 1e6, max: holds.max / 1e6 };
  return { ...result, cpuPerRequestUs: (used.user + used.system) / result.times.length, loopHeldMs };
}

function summary({
  times,
  firstTimes,
  cpuPerRequestUs,
  loopHeldMs,
}: {
  times: number[];
  firstTimes: number[];
  cpuPerRequestUs: number;
  loopHeldMs: { p99: number; max: number };
}): string {
  const first = `each viewer's first (new connection, ${VIEWERS} at once) p50 ${percentile(firstTimes, 50).toFixed(1)} ms, max ${Math.max(...firstTimes).toFixed(1)} ms`;
  return `p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms (${times.length} requests, ${VIEWERS} at once; ${first}); server CPU ${cpuPerRequestUs.toFixed(0)} µs a request, its event loop held at most ${loopHeldMs.max.toFixed(1)} ms (p99 ${loopHeldMs.p99.toFixed(1)})`;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
