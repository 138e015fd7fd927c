import {
  createBrowserStageActivities,
  createQueuedBrowserActivities,
  createShellRenderActivities,
} from '../activities';
import { pageLabScore } from '../src/analyzers/browser-stage';
import { BrowserPool } from '../src/browser/pool';
import type { Config } from '../src/config';
import type { Db } from '../src/db/knex';
import { startTemporalWorker, type RunningWorker, type TemporalWorkerOptions } from '../temporal/worker';

/**
 * The browser worker (its own process under `npm start`): the browser stage of live audits on
 * BROWSER_TASK_QUEUE. Its Chromiums stay warm across pages and audits and render BROWSER_CONCURRENCY
 * pages at once; more stages than that may be waiting for their crawls, so the activity slots are
 * not what bounds the rendering. Its Chromiums end with it: closed on shutdown, killed with the
 * process otherwise (src/browser/chromium.ts).
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
      renderTimeoutMs: config.browserRenderTimeoutMs,
      // A page near a grade boundary: the median of up to three runs (docs/analyzers.md, "How stable a score is").
      performanceScore: pageLabScore,
    });
  const running = await startTemporalWorker({
    address: opts.temporalAddress,
    namespace: config.temporalNamespace,
    security: config.temporalSecurity,
    taskQueue: config.browserStage?.taskQueue ?? `${config.taskQueue}-browser`,
    workflowBundle: opts.workflowBundle,
    // A task is taken only when a browser can render it: the backlog waits in the task queue, first
    // come first served, for whichever browser worker frees a slot (docs/architecture.md).
    maxConcurrentActivities: config.browserConcurrency,
    activities: {
      // Executions started before patch browser-stage-queued still run the stage as one activity.
      ...createBrowserStageActivities({ db: opts.db, pool }),
      ...createQueuedBrowserActivities({ db: opts.db, pool }),
      // The crawl's application shells, rendered so it goes on through their links (docs/architecture.md).
      ...createShellRenderActivities({ db: opts.db, pool, config }),
    },
  });
  // However the Temporal worker ends, its Chromiums are closed before the process goes on to exit.
  const done = running.done.finally(() => pool.close());
  return {
    ...running,
    pool,
    done,
    async shutdown() {
      // Chromium is closed at once, not once the renders under way have ended: one may take longer
      // than the supervisor waits before SIGKILL (its activity fails, and is retried elsewhere).
      await Promise.all([pool.close(), running.shutdown()]);
      await done;
    },
  };
}
