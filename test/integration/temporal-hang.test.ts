// A Temporal frontend that hangs (SIGSTOP) must not stall the API: reads keep their speed, triggers
// are answered without waiting on it, and everything accepted completes once it is back (SIGCONT).
// Own Temporal dev server, own database, own API process and worker: nothing else sees the hang.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createAccount, createApiKey } from '../../src/accounts/repository';
import { systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createDb, migrateLatest, type Db } from '../../src/db/knex';
import { freePort } from '../../src/db/embedded';
import { createLiveEngine } from '../../src/audits/live-engine';
import { startWorker } from '../../processes/audit-worker';
import type { Tier } from '../../src/schemas/audit';
import { ensureTemporalCli } from '../../src/setup/temporal-cli';
import { startDevServer, type DevServer } from '../../src/setup/temporal-dev-server';
import type { RunningWorker } from '../../temporal/worker';
import { startApiProcess } from '../support/processes';
import { startReadLoad, type ReadLoad } from '../support/read-load';
import { serveSite, type LocalSite } from '../support/sites';
import { api, testEnv, workflowBundle } from '../support/stack';

const HOME =
  '<!doctype html><html lang="en"><head><title>Audited through a Temporal hang</title></head><body><h1>Hi</h1></body></html>';
/**
 * Not a speed target (that is bench/'s): a read that waited on the stopped server would take the whole
 * hang, so a p99 under a second shows no read waits on Temporal, however loaded the machine is.
 */
const READ_P99_BOUND_MS = 1000;

describe('Temporal hang (dev server SIGSTOPped)', function () {
  this.timeout(240_000);
  let devServer: DevServer;
  let databaseUrl: string;
  let db: Db;
  let apiProcess: { url: string; stop(): Promise<void> };
  let worker: RunningWorker | undefined;
  let site: LocalSite;
  let stopped = false;
  let reads: ReadLoad | undefined;

  before(async () => {
    const cliPath = await ensureTemporalCli(() => undefined);
    devServer = await startDevServer({ cliPath, port: await freePort(), headless: true });
    databaseUrl = await createDatabase();
    db = createDb(databaseUrl);
    await migrateLatest(db);
    const env = {
      ...testEnv,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: devServer.address,
      AUDIT_RECONCILE_INTERVAL_MS: '1000',
    };
    apiProcess = await startApiProcess(env);
    const config = loadConfig({ ...process.env, ...env });
    worker = await startWorker({
      config,
      db,
      clock: systemClock,
      temporalAddress: devServer.address,
      engine: createLiveEngine(config),
      workflowBundle: await workflowBundle(),
      testWebhookMockUrl: `${apiProcess.url}/mock/webhooks`,
    });
    site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  });

  after(async () => {
    if (stopped) process.kill(devServer.pid, 'SIGCONT');
    await reads?.stop().catch(() => undefined);
    await apiProcess?.stop();
    await worker?.shutdown();
    await devServer?.stop();
    await db?.destroy();
    if (databaseUrl) await dropDatabase(databaseUrl);
    await site?.close();
  });

  it('keeps reads fast and triggers prompt while it hangs; every accepted audit completes once it is back', async () => {
    const base = { baseUrl: apiProcess.url };
    const trigger = (key: string, domain: string) => api('POST', '/v1/audits', { ...base, key, body: { domain } });
    const [reader, liveA, liveB, refusedLive] = await Promise.all(
      ['pro', 'pro', 'pro', 'pro'].map((tier) => account(db, tier as Tier)),
    );

    // Before the hang: a completed audit to read, and a live audit of the site (later ones are charged).
    const warm = await trigger(reader.testKey, 'https://warm.example.com');
    assert.equal(warm.status, 202, warm.text);
    const warmLive = await trigger(liveA.liveKey, site.origin);
    assert.equal(warmLive.status, 202, warmLive.text);
    await waitForTerminal(db, [warm.body.audit_id, warmLive.body.audit_id], 60_000);
    // Every key once, so that what is measured below is the hang, not the first look-up of a key.
    for (const { testKey, liveKey } of [reader, liveA, liveB, refusedLive]) {
      for (const key of [testKey, liveKey]) assert.equal((await api('GET', '/v1/usage', { ...base, key })).status, 200);
    }

    // Two loops of reads from a process of their own, measured only while Temporal hangs.
    reads = await startReadLoad({
      baseUrl: apiProcess.url,
      key: reader.testKey,
      paths: ['/v1/audits?limit=20', `/v1/audits/${warm.body.audit_id}`],
    });
    process.kill(devServer.pid, 'SIGSTOP');
    stopped = true;
    reads.measure();

    // 20 concurrent triggers while it hangs: live ones of two accounts, new test audits and
    // re-triggers of the completed test audit (same audit id).
    const wave = await Promise.all([
      ...Array.from({ length: 5 }, () => trigger(liveA.liveKey, site.origin)),
      ...Array.from({ length: 5 }, () => trigger(liveB.liveKey, site.origin)),
      ...Array.from({ length: 5 }, (_, i) => trigger(reader.testKey, `https://hang-${i}.example.com`)),
      ...Array.from({ length: 5 }, () => trigger(reader.testKey, 'https://warm.example.com')),
    ]);
    for (const response of wave) assert.ok([202, 503].includes(response.status), response.text);
    const accepted = wave.filter((r) => r.status === 202).map((r) => r.body.audit_id as string);
    // They reached the breaker before any start had timed out: all are accepted (committed first).
    assert.equal(accepted.length, 20, 'accepted before the hang was known');
    assert.equal(new Set(accepted).size, 16, 'the five re-triggers share the warm audit id');

    // Now the hang is known: triggers are refused at once, storing and charging nothing. Awaited while the
    // server is still stopped (SIGCONT comes after): an API that waited on Temporal would never answer them.
    const usageBefore = (await api('GET', '/v1/usage', { ...base, key: refusedLive.testKey })).body.audits_used;
    const refused = await Promise.all([
      ...Array.from({ length: 5 }, () => trigger(refusedLive.liveKey, site.origin)),
      ...Array.from({ length: 5 }, (_, i) => trigger(refusedLive.testKey, `https://refused-${i}.example.com`)),
      trigger(reader.testKey, 'https://warm.example.com'),
    ]);
    for (const response of refused) {
      assert.equal(response.status, 503, response.text);
      assert.equal(response.body.error.code, 'audit_provider_unavailable');
      // The breaker's refusal, decided before the audit is stored and so before any call to Temporal (a
      // start that fails after the commit is left to the reconciler and answered 202).
      assert.match(response.body.error.message, /temporarily unavailable; nothing was stored or charged/);
    }
    assert.equal((await db('audits').where({ account_id: refusedLive.accountId })).length, 0, 'nothing stored');
    assert.equal(
      (await api('GET', '/v1/usage', { ...base, key: refusedLive.testKey })).body.audits_used,
      usageBefore,
      'nothing charged',
    );

    const { latencies, failures } = await reads.stop();
    process.kill(devServer.pid, 'SIGCONT');
    stopped = false;
    const p99 = percentile(latencies, 0.99);
    console.log(
      `      reads during the hang: ${latencies.length}, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    );
    assert.deepEqual(failures, [], 'every read answered 200');
    assert.ok(latencies.length >= 50, `${latencies.length} reads`);
    assert.ok(p99 < READ_P99_BOUND_MS, `read p99 ${p99.toFixed(1)} ms`);

    // Back: the reconciler makes the owed starts and every accepted audit completes.
    const rows = await waitForTerminal(db, [...new Set(accepted)], 120_000);
    assert.deepEqual([...new Set(rows.map((r) => r.status))], ['completed'], JSON.stringify(rows));
    assert.equal((await db('pending_audit_starts')).length, 0, 'no start left owed');
    const charged = await db('audits')
      .whereIn('id', accepted)
      .where({ charged: true })
      .count<{ count: string }[]>('id as count');
    assert.equal(Number(charged[0].count), 9, "charged: every live audit but account B's first of the site");

    // And triggers are accepted again as soon as a probe sees it answer.
    const deadline = Date.now() + 30_000;
    let again = await trigger(refusedLive.liveKey, site.origin);
    while (again.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      again = await trigger(refusedLive.liveKey, site.origin);
    }
    assert.equal(again.status, 202, again.text);
    assert.equal((await waitForTerminal(db, [again.body.audit_id], 60_000))[0].status, 'completed');
  });
});

async function account(db: Db, tier: Tier): Promise<{ accountId: string; testKey: string; liveKey: string }> {
  const now = new Date();
  const created = await createAccount(db, { tier, now });
  const test = await createApiKey(db, { workspaceId: created.workspace_id, mode: 'test', now });
  const live = await createApiKey(db, { workspaceId: created.workspace_id, mode: 'live', now });
  return { accountId: created.account_id, testKey: test.key, liveKey: live.key };
}

async function waitForTerminal(
  db: Db,
  ids: string[],
  timeoutMs: number,
): Promise<Array<{ id: string; status: string }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = (await db('audits').whereIn('id', ids).select('id', 'status')) as Array<{
      id: string;
      status: string;
    }>;
    if (rows.length === ids.length && rows.every((r) => r.status === 'completed' || r.status === 'failed')) return rows;
    if (Date.now() > deadline) throw new Error(`audits not finished after ${timeoutMs} ms: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

/** A database of its own on the run's Postgres server. */
async function createDatabase(): Promise<string> {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  const name = `audit_hang_${randomBytes(4).toString('hex')}`;
  await adminQuery(url.toString(), `CREATE DATABASE ${name}`);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = `/${new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1)}`;
  await adminQuery(url.toString(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

async function adminQuery(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
