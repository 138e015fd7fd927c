import fs from 'node:fs';
import { createAccount, createApiKey } from '../src/accounts/repository';
import { BrowserPool } from '../src/browser/pool';
import { DEFAULT_CHROMIUM_PATH } from '../src/browser/chromium';
import { loadLighthouse } from '../src/browser/lighthouse';
import { systemClock } from '../src/clock';
import { loadConfig, type Config } from '../src/config';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { parseCidrList } from '../src/outbound/policy';
import { startApi } from '../processes/api-service';
import { superviseWorker, type SupervisedWorker } from '../processes/worker-process';
import { startTestInfrastructure } from '../test/support/infrastructure';
import { serveGeneratedSite } from './generated-site';

/**
 * `npm run bench:browser`: the browser stage's speed on this machine.
 * 1. Per sampled page, in this process: the first page on a cold pool (Chromium start, Lighthouse
 *    loaded) and pages on the warm pool, beside a default Lighthouse run (every category, the
 *    full-page screenshot) of the same pages in the same browser as the baseline; Chromium's peak
 *    memory (PSS of its process group, so shared pages count once).
 * 2. A pro live audit of a generated 100-page local site end to end (trigger → completed), as
 *    `npm start` runs it (audit and browser workers in their own processes), beside the same audit
 *    with the browser stage off.
 */
const WARM_PAGES = Number(process.env.BENCH_BROWSER_PAGES || 5);

async function perPage(): Promise<void> {
  const site = await serveGeneratedSite(100);
  const pool = new BrowserPool({ executablePath: DEFAULT_CHROMIUM_PATH, size: 1, allow: parseCidrList('127.0.0.0/8') });
  let peakKiB = 0;
  const sampler = setInterval(() => {
    for (const pid of pool.pids()) peakKiB = Math.max(peakKiB, groupPssKiB(pid));
  }, 500);
  try {
    let started = performance.now();
    const cold = await pool.render(`${site.origin}/`);
    const coldMs = performance.now() - started;
    const warm: number[] = [];
    const unrenderable: string[] = [];
    for (let i = 0; i < WARM_PAGES; i++) {
      started = performance.now();
      const result = await pool.render(`${site.origin}/p/${i}`);
      if (result.status === 'unrenderable') unrenderable.push(`/p/${i}: ${result.reason}`);
      warm.push(performance.now() - started);
    }
    // Baseline: Lighthouse as it runs by default, on the same pages and browser.
    const lighthouse = await loadLighthouse();
    const [port] = await pool.ports();
    const full: number[] = [];
    for (let i = 0; i < WARM_PAGES; i++) {
      started = performance.now();
      await lighthouse(`${site.origin}/p/${i}`, { port, output: 'json', logLevel: 'error' });
      full.push(performance.now() - started);
    }
    const warmMs = mean(warm);
    const fullMs = mean(full);
    console.log(`per sampled page (${cold.status} cold, ${WARM_PAGES} warm):`);
    console.log(`  cold pool (Chromium start + Lighthouse load + first page): ${fmt(coldMs)}`);
    console.log(`  warm pool: mean ${fmt(warmMs)}, min ${fmt(Math.min(...warm))}, max ${fmt(Math.max(...warm))}`);
    console.log(
      `  baseline, default Lighthouse run (all categories): mean ${fmt(fullMs)} → stage/baseline ${(warmMs / fullMs).toFixed(2)}`,
    );
    if (unrenderable.length) console.log(`  unrenderable (timed as measured): ${unrenderable.join('; ')}`);
    console.log(`  Chromium peak memory (PSS of its process group): ${(peakKiB / 1024).toFixed(0)} MiB`);
  } finally {
    clearInterval(sampler);
    await pool.close();
    await site.close();
  }
}

async function endToEnd(): Promise<void> {
  const infra = await startTestInfrastructure(() => undefined);
  const env = { ...process.env, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', PORT: '0' };
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  const temporalAddress = process.env.TEST_TEMPORAL_ADDRESS!;
  const db = createDb(databaseUrl, { max: 10 });
  await migrateLatest(db);
  const workerEnv = { ...env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress };
  const workers: SupervisedWorker[] = [];
  for (const kind of ['audits', 'browser']) {
    const worker = await superviseWorker({ ...workerEnv, WORKER_KIND: kind }, () => undefined);
    await worker.ready();
    workers.push(worker);
  }
  const withStage = loadConfig(env);
  const withoutStage: Config = { ...withStage, browserStage: null };
  try {
    const stageMs = await timedAudit(db, withStage, temporalAddress, databaseUrl);
    const plainMs = await timedAudit(db, withoutStage, temporalAddress, databaseUrl);
    console.log('pro live audit of a 100-page local site, trigger → completed (target < 60 s):');
    console.log(`  with the browser stage (5 sampled pages): ${fmt(stageMs)}`);
    console.log(`  baseline, browser stage off: ${fmt(plainMs)} → ratio ${(stageMs / plainMs).toFixed(2)}`);
  } finally {
    for (const worker of workers) await worker.stop();
    await db.destroy();
    await infra.stop();
  }
}

async function timedAudit(db: Db, config: Config, temporalAddress: string, databaseUrl: string): Promise<number> {
  const site = await serveGeneratedSite(100);
  const api = await startApi({
    config,
    db,
    databaseUrl,
    clock: systemClock,
    temporalAddress,
    workers: () => ({}),
    log: () => undefined,
  });
  try {
    const now = new Date();
    const account = await createAccount(db, { tier: 'pro', now });
    const { key } = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'live', now });
    const started = performance.now();
    const response = await fetch(`${api.url}/v1/audits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: site.origin }),
    });
    if (response.status !== 202) throw new Error(`trigger answered ${response.status}: ${await response.text()}`);
    const { audit_id: auditId } = (await response.json()) as { audit_id: string };
    for (;;) {
      const row = await db('audits').where({ id: auditId }).first('status');
      if (row && !['queued', 'running'].includes(row.status)) {
        if (row.status !== 'completed') throw new Error(`audit ${auditId} ${row.status}`);
        return performance.now() - started;
      }
      if (performance.now() - started > 600_000) throw new Error(`audit ${auditId} still ${row?.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await api.stop();
    await site.close();
  }
}

/** Proportional set size of a process and the processes of its group (Chromium's renderers, GPU…). */
function groupPssKiB(leader: number): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgid !== leader) continue;
      const rollup = fs.readFileSync(`/proc/${entry}/smaps_rollup`, 'utf8');
      total += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  await perPage();
  await endToEnd();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
