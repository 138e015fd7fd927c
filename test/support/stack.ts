import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { SettableClock } from '../../src/clock';
import { loadConfig, type Config } from '../../src/config';
import { createDb, migrateLatest, type Db } from '../../src/db/knex';
import { createAccount, createApiKey } from '../../src/accounts/repository';
import { publishChange } from '../../src/db/change-feed';
import { siteOfUrl } from '../../src/registrable-domain';
import { createLiveEngine } from '../../src/audits/live-engine';
import { startApi, type RunningApi } from '../../processes/api-service';
import { startBrowserWorker } from '../../processes/browser-worker';
import { startReportWorker } from '../../processes/report-worker';
import { startWorker } from '../../processes/audit-worker';
import type { RunningWorker } from '../../temporal/worker';
import type { Tier } from '../../src/schemas/audit';
import { bundleWorkflows } from '../../temporal/worker';
import { createLogger } from '../../src/observability/logger';

/**
 * The service as integration tests see it: API + worker in this process, on the run's real
 * Temporal dev server and Postgres, with a settable clock. Started once, shared by all files.
 */
export interface Stack {
  db: Db;
  clock: SettableClock;
  config: Config;
  service: RunningApi;
  worker: RunningWorker;
  reportWorker: RunningWorker;
  /** Polls the browser stage's queue; its Chromium starts on the first page it renders. */
  browserWorker: Awaited<ReturnType<typeof startBrowserWorker>>;
  url: string;
  temporalAddress: string;
}

// Request logs would drown the test report; tests that read them pass their own accessLog.
const quietLog = createLogger({ level: 'silent' });

let stackPromise: Promise<Stack> | null = null;
let bundlePromise: Promise<WorkflowBundleWithSourceMap> | null = null;
const extraServices: RunningApi[] = [];
/** An interval that outlasts any test run (and still fits a Node timer). */
const NEVER_MS = 24 * 3600_000;

export const testEnv = {
  OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
  AUDIT_RETRY_DELAYS_MS: '100,200,300',
  DELIVERY_RETRY_DELAYS_MS: '100,200,300,400,500',
  DELIVERY_TIMEOUT_MS: '1000',
  REDELIVERY_WINDOW_MS: '20000',
  PORT: '0',
  // Rendering every fixture audit would add seconds to each live-audit test: the browser-stage tests
  // turn it on for an API of their own (test/integration/browser-stage.test.ts).
  BROWSER_STAGE: 'off',
  // The browser tests sign dozens of users up from 127.0.0.1 within minutes; the sign-up throttle's own
  // tests use an API of their own with the shipped limit (test/integration/dashboard-throttles.test.ts).
  SIGNUP_LIMIT: '10000',
  // Fixture pages load in milliseconds; the ones that never do would each hold a browser 30 s.
  BROWSER_RENDER_TIMEOUT_MS: '12000',
};

export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundlePromise ??= bundleWorkflows();
  return bundlePromise;
}

export function getStack(): Promise<Stack> {
  stackPromise ??= (async () => {
    const databaseUrl = required('TEST_DATABASE_URL');
    const temporalAddress = required('TEST_TEMPORAL_ADDRESS');
    installQuietRuntime();
    const config = loadConfig({
      ...process.env,
      ...testEnv,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
    });
    const db = createDb(databaseUrl, { max: 20 });
    await migrateLatest(db);
    const clock = new SettableClock();
    let workerState = () => false;
    const service = await startApi({
      config,
      db,
      databaseUrl,
      clock,
      temporalAddress,
      workers: () => ({ worker: workerState() ? 'up' : 'starting' }),
      log: () => undefined,
      accessLog: quietLog,
    });
    const worker = await startWorker({
      config,
      db,
      clock,
      temporalAddress,
      engine: createLiveEngine(config),
      workflowBundle: await workflowBundle(),
      testWebhookMockUrl: `${service.url}/mock/webhooks`,
    });
    const reportWorker = await startReportWorker({
      config,
      db,
      clock,
      temporalAddress,
      workflowBundle: await workflowBundle(),
    });
    const browserWorker = await startBrowserWorker({
      // Two pages at once: the suite's live audits with a browser stage share this one worker.
      config: { ...config, browserConcurrency: 2 },
      db,
      temporalAddress,
      workflowBundle: await workflowBundle(),
    });
    workerState = () => worker.worker.getState() === 'RUNNING' && reportWorker.worker.getState() === 'RUNNING';
    return { db, clock, config, service, worker, reportWorker, browserWorker, url: service.url, temporalAddress };
  })();
  return stackPromise;
}

/** The environment of a worker process of its own (processes/worker-process.ts) on `taskQueue`, beside the stack. */
export async function workerProcessEnv(taskQueue: string): Promise<NodeJS.ProcessEnv> {
  const stack = await getStack();
  return {
    ...process.env,
    DATABASE_URL: stack.config.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    TEST_WEBHOOK_MOCK_URL: `${stack.url}/mock/webhooks`,
  };
}

/**
 * Another API instance on the same database (as a second API process would be), stopped at the end.
 * It makes no owed audit starts: the shared API's reconciler is the only one, so a test can tell when
 * its pass has run (test/integration/reconciler.test.ts), and one on a task queue of its own would take
 * other tests' owed starts onto that queue, which nobody polls once the test has stopped its workers.
 */
export async function startExtraApi(overrides: Partial<Parameters<typeof startApi>[0]> = {}): Promise<RunningApi> {
  const stack = await getStack();
  const config = overrides.config ?? stack.config;
  const service = await startApi({
    db: stack.db,
    databaseUrl: stack.config.databaseUrl!,
    clock: stack.clock,
    temporalAddress: stack.temporalAddress,
    workers: () => ({}),
    log: () => undefined,
    accessLog: quietLog,
    ...overrides,
    config: { ...config, auditReconcileIntervalMs: NEVER_MS },
  });
  extraServices.push(service);
  return service;
}

/** Stops an extra API before the run ends (its change feed, caches and Temporal connection with it). */
export async function stopExtraApi(service: RunningApi | undefined): Promise<void> {
  const at = service ? extraServices.indexOf(service) : -1;
  if (at < 0) return;
  extraServices.splice(at, 1);
  await service!.stop();
}

export async function stopStack(): Promise<void> {
  for (const service of extraServices.splice(0)) await service.stop();
  if (!stackPromise) return;
  const stack = await stackPromise;
  stackPromise = null;
  await stack.service.stop();
  await stack.worker.shutdown();
  await stack.reportWorker.shutdown();
  await stack.browserWorker.shutdown();
  await stack.db.destroy();
}

export interface TestAccount {
  accountId: string;
  workspaceId: string;
  testKey: string;
  liveKey: string;
  liveKeyId: string;
}

export async function newAccount(tier: Tier = 'pro', customQuota: number | null = null): Promise<TestAccount> {
  const { db, clock } = await getStack();
  const now = clock.now();
  const account = await createAccount(db, { tier, customQuota, now });
  const test = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'test', now });
  const live = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'live', now });
  return {
    accountId: account.account_id,
    workspaceId: account.workspace_id,
    testKey: test.key,
    liveKey: live.key,
    liveKeyId: live.key_id,
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One HTTP request to the API under test. */
export async function api<T = any>(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; baseUrl?: string } = {},
): Promise<ApiResponse<T>> {
  const baseUrl = opts.baseUrl ?? (await getStack()).url;
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/**
 * Waits until the audit leaves queued/running (watching its row, so live keys do not spend their
 * retrieval limit on polling), then fetches it once through the API.
 */
export async function waitForAudit(key: string, auditId: string, timeoutMs = 20_000): Promise<ApiResponse> {
  const { db } = await getStack();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await db('audits').where({ id: auditId }).first('status');
    if (!row || !['queued', 'running'].includes(row.status)) break;
    if (Date.now() > deadline) throw new Error(`audit ${auditId} still ${row.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return api('GET', `/v1/audits/${auditId}`, { key });
}

/** Triggers an audit of `domain` (through another API instance when `baseUrl` is given) and waits until it has ended. */
export async function auditUntilEnded(
  key: string,
  domain: string,
  opts: { baseUrl?: string; timeoutMs?: number } = {},
): Promise<ApiResponse> {
  const accepted = await api('POST', '/v1/audits', { key, body: { domain }, baseUrl: opts.baseUrl });
  assert.equal(accepted.status, 202, accepted.text);
  return waitForAudit(key, accepted.body.audit_id, opts.timeoutMs);
}

/** Inserts finished live audits directly, e.g. to use up quota or burst slots before a test. */
export async function seedLiveAudits(
  account: TestAccount,
  count: number,
  opts: { createdAt: Date; charged?: boolean; domain?: string },
): Promise<void> {
  const { db } = await getStack();
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `aud_SEED${randomUUID().replace(/-/g, '').slice(0, 22).toUpperCase()}`,
    workspace_id: account.workspaceId,
    account_id: account.accountId,
    mode: 'live',
    domain: opts.domain ?? `https://seed-${i}.example.com`,
    site_key: siteOfUrl(opts.domain ?? `https://seed-${i}.example.com`),
    tier: 'pro',
    status: 'completed',
    charged: opts.charged ?? true,
    created_at: opts.createdAt,
    completed_at: opts.createdAt,
  }));
  if (rows.length) await db('audits').insert(rows);
  // As the service's own writes do: API instances drop their cached usage of the account.
  await publishChange(db, { kind: 'account', id: account.accountId });
}

let runtimeInstalled = false;
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed by an earlier test file in this process.
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run integration tests through \`npm test\``);
  return value;
}
