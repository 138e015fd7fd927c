import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded';
import { createDb } from '../../src/db/knex';
import { createAccount, createApiKey } from '../../src/accounts/repository';

const ROOT = path.join(__dirname, '..', '..');

/** How the service is started: as `npm start` does (compiled, src/setup/start.cjs), or through tsx. */
export type Entry = 'npm-start' | 'tsx';

export interface MainProcess {
  pid: number;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The service's main process with `SERVICE_ROLES=api,worker` on the run's Temporal and Postgres, on a
 * task queue of its own (no other worker takes its audits; its reconcilers make no pass during a test,
 * so it starts no other test's owed audits). Settles once /healthz says the API and the worker are up.
 */
export async function startMainProcess(entry: Entry, env: Record<string, string> = {}): Promise<MainProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-main-'));
  const args = entry === 'tsx' ? ['--import', 'tsx', 'processes/main.ts'] : ['src/setup/start.cjs'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...withoutOtel(process.env),
      DATABASE_URL: required('TEST_DATABASE_URL'),
      TEMPORAL_ADDRESS: required('TEST_TEMPORAL_ADDRESS'),
      TEMPORAL_TASK_QUEUE: `main-${randomBytes(4).toString('hex')}`,
      SERVICE_ROLES: 'api,worker',
      BROWSER_STAGE: 'off',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      AUDIT_RECONCILE_INTERVAL_MS: String(24 * 3600_000),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited:\n${output}`);
      const healthy = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (healthy) break;
      if (Date.now() > deadline) throw new Error(`the service did not become healthy:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid: child.pid!, url, output: () => output, stop };
}

/** A pro account with a test key, made directly in the run's database. */
export async function testAccount(): Promise<{ testKey: string }> {
  const db = createDb(required('TEST_DATABASE_URL'));
  try {
    const now = new Date();
    const account = await createAccount(db, { tier: 'pro', customQuota: null, now });
    const test = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'test', now });
    return { testKey: test.key };
  } finally {
    await db.destroy();
  }
}

/** Triggers a test-mode audit through the API and waits until it has completed; its id. */
export async function completedAudit(url: string, key: string, domain = 'https://example.com'): Promise<string> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await fetch(`${url}/v1/audits`, { method: 'POST', headers, body: JSON.stringify({ domain }) });
  const body = (await created.json()) as { audit_id: string };
  if (created.status !== 202) throw new Error(`POST /v1/audits answered ${created.status}: ${JSON.stringify(body)}`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const audit = (await (await fetch(`${url}/v1/audits/${body.audit_id}`, { headers })).json()) as { status: string };
    if (audit.status === 'completed') return body.audit_id;
    if (audit.status === 'failed' || Date.now() > deadline)
      throw new Error(`audit ${body.audit_id} did not complete: ${JSON.stringify(audit)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The environment without OTEL_* variables: the test says what tracing each process has. */
function withoutOtel(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('OTEL_')));
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run integration tests through test/run.ts`);
  return value;
}
