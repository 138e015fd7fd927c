import { createBrowserStageActivities } from '../activities';
import { BrowserPool } from '../src/browser/pool';
import type { Config } from '../src/config';
import type { Db } from '../src/db/knex';
import { startTemporalWorker, type RunningWorker, type TemporalWorkerOptions } from '../temporal/worker';

/**
 * The browser worker (its own process under `npm start`): the browser stage of live audits on
 * BROWSER_TASK_QUEUE. Its Chromiums stay warm across pages and audits and render BROWSER_CONCURRENCY
 * pages at once; more stages than that may be waiting for their crawls, so the activity slots are
 * not what bounds the rendering.
 */
export async function startBrowserWorker(opts: {
  config: Config;
  db: Db;
  temporalAddress: string;
  workflowBundle: TemporalWorkerOptions['workflowBundle'];
  pool?: BrowserPool;
}): Promise<RunningWorker & { pool: BrowserPool }> {
  const { config } = opts;
  const pool =
    opts.pool ??
    new BrowserPool({
      executablePath: config.chromiumPath,
      size: config.browserConcurrency,
      allow: config.outboundAllow,
    });
  const running = await startTemporalWorker({
    address: opts.temporalAddress,
    namespace: config.temporalNamespace,
    security: config.temporalSecurity,
    taskQueue: config.browserStage?.taskQueue ?? `${config.taskQueue}-browser`,
    workflowBundle: opts.workflowBundle,
    maxConcurrentActivities: 20,
    activities: createBrowserStageActivities({ db: opts.db, pool }),
  });
  return {
    ...running,
    pool,
    async shutdown() {
      await running.shutdown();
      await pool.close();
    },
  };
}
