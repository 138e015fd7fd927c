import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createAccount, createApiKey } from '../src/accounts/repository';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { startApi, type RunningApi } from '../processes/api-service';
import { superviseWorker, type SupervisedWorker } from '../processes/worker-process';
import { startTestInfrastructure } from '../test/support/infrastructure';
import type { Tier } from '../src/schemas/audit';
import { createLogger } from '../src/observability/logger';

/**
 * The stack the webhook and capacity benches measure, as `npm start` runs it: the audit worker and
 * the report worker in their own supervised processes, the API in this one, on a fresh Temporal dev
 * server and Postgres. Test-mode deliveries go to a local receiver (TEST_WEBHOOK_MOCK_URL).
 */
export interface BenchStack {
  db: Db;
  api: RunningApi;
  receiver: BenchReceiver;
  worker: SupervisedWorker;
  reportWorker: SupervisedWorker;
  stop(): Promise<void>;
}

export interface Receipt {
  deliveryId: string;
  auditId: string;
  attempt: number;
  at: number;
  /** Signatures in the Standard Webhooks header: two while a rotated secret is in its grace period. */
  signatures: number;
}

export interface BenchReceiver {
  url: string;
  receipts: Receipt[];
  close(): Promise<void>;
}

export async function startBenchStack(env: Record<string, string> = {}): Promise<BenchStack> {
  // Temporal keeps its state in a file, as under `npm start` (in memory it would be faster than what users run).
  const infra = await startTestInfrastructure(() => undefined, { temporalOnDisk: true });
  // Webhooks are added with the local receiver's address; workers log warnings only.
  Object.assign(process.env, { OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', LOG_LEVEL: 'warn', ...env });
  const receiver = await startBenchReceiver();
  process.env.TEST_WEBHOOK_MOCK_URL = receiver.url;
  const config = loadConfig({ ...process.env, PORT: '0' });
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  const temporalAddress = process.env.TEST_TEMPORAL_ADDRESS!;
  const db = createDb(databaseUrl, { max: 20 });
  await migrateLatest(db);
  const workerEnv = { ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress };
  const log = (message: string) => console.log(`  (supervisor: ${message})`);
  const worker = await superviseWorker({ ...workerEnv, WORKER_KIND: 'audits' }, log);
  const reportWorker = await superviseWorker({ ...workerEnv, WORKER_KIND: 'reports' }, log);
  await Promise.all([worker.ready(), reportWorker.ready()]);
  const api = await startApi({
    config,
    db,
    databaseUrl,
    clock: systemClock,
    temporalAddress,
    workers: () => ({ worker: worker.state(), report_worker: reportWorker.state() }),
    log: () => undefined,
    accessLog: createLogger({ level: 'silent' }),
  });
  return {
    db,
    api,
    receiver,
    worker,
    reportWorker,
    async stop() {
      await api.stop();
      await worker.stop();
      await reportWorker.stop();
      await receiver.close();
      await db.destroy();
      await infra.stop();
    },
  };
}

/** A workspace with a test key (and a live key), with quota enough for any bench. */
export async function benchWorkspace(db: Db, tier: Tier = 'enterprise') {
  const now = new Date();
  const account = await createAccount(db, { tier, customQuota: 1_000_000, now });
  const test = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'test', now });
  return {
    workspaceId: account.workspace_id,
    headers: { authorization: `Bearer ${test.key}`, 'content-type': 'application/json' },
  };
}

/** Answers 200 to every POST and notes when each delivery attempt arrived. */
async function startBenchReceiver(): Promise<BenchReceiver> {
  const receipts: Receipt[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receipts.push({
        deliveryId: String(req.headers['webhook-id']),
        auditId: String(req.headers['x-service-audit-id']),
        attempt: Number(req.headers['x-service-attempt']),
        at: Date.now(),
        signatures: String(req.headers['webhook-signature'] ?? '')
          .split(' ')
          .filter(Boolean).length,
      });
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    receipts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function percentiles(samples: number[]): { n: number; p50: number; p95: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const pick = (q: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
  return { n: sorted.length, p50: pick(0.5), p95: pick(0.95), p99: pick(0.99) };
}

export function printPercentiles(name: string, samples: number[]): void {
  const p = percentiles(samples);
  console.log(
    `${name.padEnd(58)} n=${String(p.n).padStart(4)}  p50 ${p.p50.toFixed(1).padStart(7)} ms  p95 ${p.p95.toFixed(1).padStart(7)} ms`,
  );
}

/** Resident memory of a process now, in MiB (NaN when it is gone). */
export async function rssMiB(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  try {
    const { stdout } = await promisify(execFile)('ps', ['-o', 'rss=', '-p', String(pid)]);
    return Number(stdout.trim()) / 1024;
  } catch {
    return NaN;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
