import pino from 'pino';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createAccount } from '../src/accounts/repository';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { createLiveEngine } from '../src/audits/live-engine';
import { startApi } from '../processes/api-service';
import { startWorker } from '../processes/audit-worker';
import { bundleWorkflows } from '../temporal/worker';
import { startTestInfrastructure } from '../test/support/infrastructure';
import { accountUsage } from '../src/accounts/usage';
import { createSite } from '../src/sites/service';
import { TemporalSiteSchedules } from '../temporal/site-schedules';

/**
 * `npm run bench:sites`: 1,000 monitored live sites of one account on one API and one worker,
 * every schedule firing at the same instant (SITE_SCHEDULE_OVERRIDE_MS, epoch-aligned): the worst
 * burst one worker can get, all through the trigger path under the one account's row lock. The
 * account's quota is used up, so every run ends as a recorded skip and no crawl runs: what is
 * measured is the scheduling path itself. Figures: schedule-trigger latency (scheduled time → the
 * trigger decided and the run recorded; p50, p99, max) and the process's memory (API and worker
 * share it here), each against a baseline measured first in the same process: one site firing
 * alone, and the memory before any site existed.
 */
const SITES = Number(process.env.BENCH_SITES || 1000);
const INTERVAL_MS = Number(process.env.BENCH_SITE_INTERVAL_MS || 120_000);

async function main(): Promise<void> {
  const infra = await startTestInfrastructure(() => undefined);
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  const temporalAddress = process.env.TEST_TEMPORAL_ADDRESS!;
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    SITE_SCHEDULE_OVERRIDE_MS: String(INTERVAL_MS),
    // The sites are http://127.0.0.1:<port>: one registrable site, so the seeded audit makes none free.
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
  });
  const db = createDb(databaseUrl, { max: 20 });
  await migrateLatest(db);
  const common = { config, db, clock: systemClock, temporalAddress, log: () => undefined };
  const api = await startApi({ ...common, databaseUrl, workers: () => ({}), accessLog: pino({ level: 'silent' }) });
  const worker = await startWorker({
    ...common,
    engine: createLiveEngine(config),
    workflowBundle: await bundleWorkflows(),
    testWebhookMockUrl: `${api.url}/mock/webhooks`,
  });
  try {
    const account = await createAccount(db, { tier: 'enterprise', customQuota: 1, now: new Date() });
    await useUpQuota(db, account);
    // Through the service, as POST /v1/sites does (over HTTP a live key would meet the retrieval limit).
    const usage = await accountUsage(db, account.account_id, new Date());
    const caller = { workspaceId: account.workspace_id, accountId: account.account_id, mode: 'live' as const, usage };
    const deps = {
      db,
      clock: systemClock,
      config,
      schedules: new TemporalSiteSchedules(api.temporal.client, config.taskQueue),
    };
    const create = async (i: number) =>
      (await createSite(deps, caller, { domain: `http://127.0.0.1:${20000 + i}`, schedule: 'daily' })).id;

    const idle = memory();
    const single = await measureCycle(db, [await create(0)]);
    const ids = [];
    const started = Date.now();
    for (let i = 1; i < SITES; i += 25)
      ids.push(...(await Promise.all(Array.from({ length: Math.min(25, SITES - i) }, (_, k) => create(i + k)))));
    console.log(`created ${ids.length + 1} sites (each a Temporal Schedule) in ${Date.now() - started} ms`);
    const burst = await measureCycle(db, ids);

    const row = (label: string, l: number[]) =>
      `${label}: p50 ${pct(l, 50)} ms, p99 ${pct(l, 99)} ms, max ${Math.max(...l)} ms (${l.length} firings)`;
    console.log(row('one site alone (baseline)', single.latencies));
    console.log(row(`${ids.length} sites firing at once`, burst.latencies));
    console.log(
      `latency ratio (p99, burst / baseline): ${(pct(burst.latencies, 99) / pct(single.latencies, 99)).toFixed(1)}x`,
    );
    console.log(
      `memory: idle ${mb(idle.rss)} MB rss / ${mb(idle.heap)} MB heap; peak during the burst ` +
        `${mb(burst.peak.rss)} MB rss / ${mb(burst.peak.heap)} MB heap (${(burst.peak.rss / idle.rss).toFixed(2)}x rss)`,
    );
  } finally {
    await worker.shutdown();
    await api.stop();
    await db.destroy();
    await infra.stop();
  }
}

/** One charged audit of the sites' registrable site, ten minutes ago: the quota of 1 is used, no site is new. */
async function useUpQuota(db: Db, account: { account_id: string; workspace_id: string }): Promise<void> {
  const at = new Date(Date.now() - 600_000);
  await db('audits').insert({
    id: 'aud_BENCHSEED',
    workspace_id: account.workspace_id,
    account_id: account.account_id,
    mode: 'live',
    domain: 'http://127.0.0.1:19999',
    site_key: '127.0.0.1',
    tier: 'enterprise',
    status: 'completed',
    charged: true,
    created_at: at,
    completed_at: at,
  });
}

/**
 * Waits for the next firing of every site (the next interval boundary after now plus a margin) and
 * returns each run's delay after its scheduled time, and the peak memory meanwhile.
 */
async function measureCycle(db: Db, siteIds: string[]) {
  const due = new Date((Math.floor((Date.now() + 2000) / INTERVAL_MS) + 1) * INTERVAL_MS);
  let peak = memory();
  const sampler = setInterval(() => {
    const now = memory();
    if (now.rss > peak.rss) peak = now;
  }, 250);
  try {
    for (;;) {
      const rows: Array<{ latency: string; outcome: string }> = await db('site_runs')
        .whereIn('site_id', siteIds)
        .where({ scheduled_at: due })
        .select('outcome', db.raw('extract(epoch from (created_at - scheduled_at)) * 1000 as latency'));
      const done = rows.length === siteIds.length || Date.now() > due.getTime() + 3 * 60_000;
      if (done && rows.length > 0) {
        const outcomes = [...new Set(rows.map((r) => r.outcome))].join(', ');
        console.log(`firing at ${due.toISOString()}: ${rows.length} of ${siteIds.length} recorded (${outcomes})`);
        return { latencies: rows.map((r) => Math.round(Number(r.latency))), peak };
      }
      if (done) throw new Error(`none of ${siteIds.length} sites fired at ${due.toISOString()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    clearInterval(sampler);
  }
}

function memory(): { rss: number; heap: number } {
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
