import { createReportRenderingActivities } from '../activities/report-render';
import { createReportStorage } from '../src/reports/configured-storage';
import { startTemporalWorker, type TemporalWorkerOptions, type RunningWorker } from '../temporal/worker';
import type { CommonOptions } from './shared-clients';

/**
 * The report worker (its own process under `npm start`): ReportWorkflow and the PDF render on
 * REPORT_TASK_QUEUE. Renders are CPU-bound and synchronous; apart from the audit worker they never
 * hold up crawls, their heartbeats or workflow tasks, and their memory is not the crawler's.
 */
export async function startReportWorker(
  opts: CommonOptions & { workflowBundle: TemporalWorkerOptions['workflowBundle'] },
): Promise<RunningWorker> {
  return startTemporalWorker({
    address: opts.temporalAddress,
    namespace: opts.config.temporalNamespace,
    security: opts.config.temporalSecurity,
    shutdownGraceMs: opts.config.workerShutdownGraceMs,
    taskQueue: opts.config.reportTaskQueue,
    workflowBundle: opts.workflowBundle,
    // One render at a time per process: CPU-bound, so more would only share the same core.
    maxConcurrentActivities: 1,
    activities: createReportRenderingActivities({
      db: opts.db,
      clock: opts.clock,
      storage: createReportStorage(opts.config),
      fallbackFont: opts.config.reportFallbackFont,
    }),
  });
}
