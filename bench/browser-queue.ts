import { createAccount, createApiKey } from '../src/accounts/repository';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { startApi, type RunningApi } from '../processes/api-service';
import { superviseWorker, type SupervisedWorker } from '../processes/worker-process';
import { startTestInfrastructure } from '../test/support/infrastructure';
import { serveSite, type LocalSite } from '../test/support/sites';

/**
 * `npm run bench:browser-queue`: how a backlog of browser work drains (docs/architecture.md, "The flow
 * of an audit"). BENCH_QUEUE_AUDITS (10) one-page live audits are triggered at once and wait in the
 * browser task queue; the time from the first trigger to the last completion is measured with one
 * browser worker, then with two (each rendering one page at a time, in processes of their own as
 * `npm start` runs them), and the order the audits completed in is compared with the trigger order.
 */
const AUDITS = Number(process.env.BENCH_QUEUE_AUDITS || 10);

async function main(): Promise<void> {
  const infra = await startTestInfrastructure(() => undefined);
  const env = { ...process.env, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', PORT: '0', BROWSER_CONCURRENCY: '1' };
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  const temporalAddress = process.env.TEST_TEMPORAL_ADDRESS!;
  const db = createDb(databaseUrl, { max: 10 });
  await migrateLatest(db);
  const workerEnv = { ...env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress };
  const workers: SupervisedWorker[] = [];
  const startWorker = async (kind: string) => {
    const worker = await superviseWorker({ ...workerEnv, WORKER_KIND: kind }, () => undefined);
    await worker.ready();
    workers.push(worker);
  };
  const api = await startApi({
    config: loadConfig(env),
    db,
    databaseUrl,
    clock: systemClock,
    temporalAddress,
    workers: () => ({}),
    log: () => undefined,
  });
  try {
    await startWorker('audits');
    await startWorker('browser');
    // Chromium started and Lighthouse loaded before anything is timed.
    await drain(db, api, 1);
    const one = await drain(db, api, AUDITS);
    await startWorker('browser');
    await drain(db, api, 1);
    const two = await drain(db, api, AUDITS);
    console.log(`${AUDITS} one-page live audits triggered at once, first trigger → last completion:`);
    console.log(`  one browser worker (baseline): ${fmt(one.ms)}; completed out of trigger order: ${one.outOfOrder}`);
    console.log(`  two browser workers: ${fmt(two.ms)}; completed out of trigger order: ${two.outOfOrder}`);
    console.log(`  ratio two/one: ${(two.ms / one.ms).toFixed(2)} (0.50 would be twice as fast)`);
  } finally {
    await api.stop();
    for (const worker of workers) await worker.stop();
    await db.destroy();
    await infra.stop();
  }
}

/** Triggers `count` audits of one-page sites at once and waits for all; how long, and how many finished before an earlier trigger. */
async function drain(db: Db, api: RunningApi, count: number): Promise<{ ms: number; outOfOrder: number }> {
  const sites: LocalSite[] = [];
  for (let i = 0; i < count; i++)
    sites.push(
      // Something to paint: a page that never paints waits out the render's 30 s time-out.
      await serveSite({
        '/robots.txt': { body: '' },
        '/': { body: `<!doctype html><html lang="en"><title>Site ${i}</title><h1>Site ${i}</h1><p>A page.</p></html>` },
      }),
    );
  const now = new Date();
  const account = await createAccount(db, { tier: 'pro', now });
  const { key } = await createApiKey(db, { workspaceId: account.workspace_id, mode: 'live', now });
  try {
    const started = performance.now();
    const ids: string[] = [];
    for (const site of sites) {
      const response = await fetch(`${api.url}/v1/audits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ domain: site.origin }),
      });
      if (response.status !== 202) throw new Error(`trigger answered ${response.status}: ${await response.text()}`);
      ids.push(((await response.json()) as { audit_id: string }).audit_id);
    }
    for (;;) {
      const rows: Array<{ id: string; status: string; completed_at: Date | null }> = await db('audits')
        .whereIn('id', ids)
        .select('id', 'status', 'completed_at');
      if (rows.every((row) => !['queued', 'running'].includes(row.status))) {
        const ms = performance.now() - started;
        const failed = rows.filter((row) => row.status !== 'completed');
        if (failed.length) throw new Error(`${failed.length} audits did not complete`);
        const at = new Map(rows.map((row) => [row.id, row.completed_at!.getTime()]));
        const outOfOrder = ids.filter((id, i) => i > 0 && at.get(id)! < at.get(ids[i - 1]!)!).length;
        return { ms, outOfOrder };
      }
      if (performance.now() - started > 900_000) throw new Error('the backlog did not drain in 15 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    for (const site of sites) await site.close();
  }
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
