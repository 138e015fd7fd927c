import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createAccount, createApiKey } from '../src/accounts/repository';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { freePort } from '../src/db/embedded';
import { startTestInfrastructure } from '../test/support/infrastructure';

/**
 * `npm run bench:startup`: start-up time and resident memory of the API process and the audit worker
 * process, run through tsx (TypeScript transpiled at load, as `npm start` ran before) and compiled
 * (dist/, as `npm start` runs now), side by side in one run on one Temporal dev server and Postgres.
 * Per round and way: the worker is forked as its supervisor forks it (with a prebuilt workflow bundle)
 * and timed until it reports ready; then the API (`SERVICE_ROLES=api`) until /healthz answers 200;
 * RSS of both after STARTUP_IDLE_S idle, and again after STARTUP_AUDITS test audits. The workflow
 * bundling each way needs (a short-lived child under `npm start`) is timed too. Prints medians over
 * STARTUP_ROUNDS rounds and the ratios compiled / tsx; writes them to bench/out/startup-<time>.json.
 */
const ROOT = path.resolve(__dirname, '..');
const ROUNDS = Number(process.env.STARTUP_ROUNDS || 3);
const IDLE_S = Number(process.env.STARTUP_IDLE_S || 5);
const AUDITS = Number(process.env.STARTUP_AUDITS || 50);
const exec = promisify(execFile);

type Way = 'tsx' | 'compiled';
const WAYS: Way[] = ['tsx', 'compiled'];
type Metric = 'bundle_ms' | 'worker_ready_ms' | 'api_healthy_ms' | 'worker_rss_idle' | 'api_rss_idle';
type LoadMetric = 'worker_rss_loaded' | 'api_rss_loaded';
type Sample = Record<Metric | LoadMetric, number>;

/** The entry file of a process, each way: the same module, as TypeScript or from dist/. */
function entry(way: Way, name: string): { file: string; execArgv: string[] } {
  return way === 'tsx'
    ? { file: path.join(ROOT, 'processes', `${name}.ts`), execArgv: ['--import', 'tsx'] }
    : { file: path.join(ROOT, 'dist', 'processes', `${name}.js`), execArgv: [] };
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function bundle(way: Way, target: string): Promise<number> {
  const { file, execArgv } = entry(way, 'bundle-main');
  const started = performance.now();
  await exec(process.execPath, [...execArgv, file, target], { cwd: ROOT });
  return performance.now() - started;
}

async function startWorker(way: Way, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; ms: number }> {
  const { file, execArgv } = entry(way, 'worker-main');
  const started = performance.now();
  const child = fork(file, [], { cwd: ROOT, env, execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the ${way} worker exited (${code}) before it was ready`)));
  });
  return { child, ms: performance.now() - started };
}

async function startApi(way: Way, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; ms: number; url: string }> {
  const { file, execArgv } = entry(way, 'main');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [...execArgv, file], {
    cwd: ROOT,
    env: { ...env, SERVICE_ROLES: 'api', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${way} API exited (${child.exitCode})`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, ms: performance.now() - started, url };
    await sleep(20);
  }
}

/** AUDITS test-mode audits at once through the API, until all have completed. */
async function load(db: Db, url: string): Promise<void> {
  const now = new Date();
  const account = await createAccount(db, { tier: 'enterprise', customQuota: null, now });
  const { key } = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'test', now });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const ids = await Promise.all(
    Array.from({ length: AUDITS }, async (_, i) => {
      const body = JSON.stringify({ domain: `https://startup-${i}.example.com` });
      const res = await fetch(`${url}/v1/audits`, { method: 'POST', headers, body });
      if (res.status !== 202) throw new Error(`POST /v1/audits answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { audit_id: string }).audit_id;
    }),
  );
  const deadline = Date.now() + 120_000;
  while ((await db('audits').whereIn('id', ids).where('status', 'completed').count('* as n'))[0]!.n != ids.length) {
    if (Date.now() > deadline) throw new Error('the test audits did not complete within 2 minutes');
    await sleep(200);
  }
}

async function round(way: Way, base: NodeJS.ProcessEnv, db: Db, bundlePath: string): Promise<Sample> {
  const bundleMs = await bundle(way, bundlePath);
  const env = { ...base, TEMPORAL_TASK_QUEUE: `startup-${randomBytes(4).toString('hex')}` };
  const worker = await startWorker(way, { ...env, WORKER_KIND: 'audits', WORKFLOW_BUNDLE_PATH: bundlePath });
  try {
    const api = await startApi(way, env);
    try {
      await sleep(IDLE_S * 1000);
      const idle = { worker: rssMiB(worker.child.pid!), api: rssMiB(api.child.pid!) };
      await load(db, api.url);
      await sleep(2000);
      return {
        bundle_ms: bundleMs,
        worker_ready_ms: worker.ms,
        api_healthy_ms: api.ms,
        worker_rss_idle: idle.worker,
        api_rss_idle: idle.api,
        worker_rss_loaded: rssMiB(worker.child.pid!),
        api_rss_loaded: rssMiB(api.child.pid!),
      };
    } finally {
      await stopChild(api.child);
    }
  } finally {
    await stopChild(worker.child);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

function report(samples: Record<Way, Sample[]>): Record<string, { tsx: number; compiled: number; ratio: number }> {
  const rows: Record<string, { tsx: number; compiled: number; ratio: number }> = {};
  for (const metric of Object.keys(samples.tsx[0]!) as Array<keyof Sample>) {
    const tsx = median(samples.tsx.map((s) => s[metric]));
    const compiled = median(samples.compiled.map((s) => s[metric]));
    rows[metric] = { tsx, compiled, ratio: compiled / tsx };
  }
  console.log(
    `\nmedians of ${ROUNDS} rounds (${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}):`,
  );
  console.log(`${'metric'.padEnd(20)} ${'tsx'.padStart(10)} ${'compiled'.padStart(10)}   compiled/tsx`);
  for (const [metric, { tsx, compiled, ratio }] of Object.entries(rows)) {
    const unit = metric.includes('rss') ? ' MiB' : ' ms';
    const value = (v: number) => `${v.toFixed(0)}${unit}`.padStart(10);
    console.log(`${metric.padEnd(20)} ${value(tsx)} ${value(compiled)}   ${ratio.toFixed(2)}`);
  }
  return rows;
}

async function main(): Promise<void> {
  const { ensureBuilt } = require('../src/setup/build.cjs') as { ensureBuilt(): boolean };
  ensureBuilt();
  const infra = await startTestInfrastructure(() => undefined);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-startup-'));
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  const db = createDb(databaseUrl);
  try {
    await migrateLatest(db);
    const base: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      DATA_DIR: tmp,
      LOG_LEVEL: 'warn',
      BROWSER_STAGE: 'off',
    };
    const samples: Record<Way, Sample[]> = { tsx: [], compiled: [] };
    for (let i = 1; i <= ROUNDS; i++) {
      // Alternating which way goes first, so neither always meets a warmer machine.
      for (const way of i % 2 ? WAYS : [...WAYS].reverse()) {
        const sample = await round(way, base, db, path.join(tmp, `workflows-${way}.js`));
        samples[way].push(sample);
        console.log(
          `round ${i} ${way.padEnd(8)} ${JSON.stringify(sample, (_, v) => (typeof v === 'number' ? Math.round(v) : v))}`,
        );
      }
    }
    const rows = report(samples);
    fs.mkdirSync(path.join(ROOT, 'bench', 'out'), { recursive: true });
    const out = path.join(ROOT, 'bench', 'out', `startup-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(
      out,
      JSON.stringify({ node: process.version, rounds: ROUNDS, audits: AUDITS, rows, samples }, null, 2),
    );
    console.log(`\nwritten to ${path.relative(ROOT, out)}`);
  } finally {
    await db.destroy();
    await infra.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
