import { systemClock } from '../src/clock';
import { loadConfig, type Config } from '../src/config';
import { createDb } from '../src/db/knex';
import { bundleWorkflows, type RunningWorker, type TemporalWorkerOptions } from '../temporal/worker';
import type { CommonOptions } from './shared-clients';
import { waitForNamespace } from '../temporal/connection';
import { logger } from '../src/observability/logger';
import { metricsPortOf } from '../src/observability/metrics-config';
import { serveMetricsIfSet } from '../src/observability/metrics-server';
import { installWorkerRuntime } from '../src/observability/temporal-runtime';
import { startTracing } from '../src/observability/tracing';

/**
 * A worker process `npm start` runs beside the API (own process, so audits being worked on do not
 * slow API responses down): WORKER_KIND=audits (default) for audits, deliveries and maintenance,
 * WORKER_KIND=reports for PDF renders, WORKER_KIND=browser for the browser stage (Chromium). Needs DATABASE_URL and TEMPORAL_ADDRESS; waits for Temporal
 * if it is down; stops on SIGTERM/SIGINT or when its supervisor is gone. With METRICS_PORT, serves
 * GET /metrics there (the report worker on the next port, the browser worker on the one after, the API on +3).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl || !config.temporalAddress)
    throw new Error('the worker needs DATABASE_URL and TEMPORAL_ADDRESS');
  const kind = { audits: 'worker', reports: 'report worker', browser: 'browser worker' }[config.workerKind];
  logger.level = config.logLevel;
  const log = logger.child({ name: kind });
  const stopRequested = new AbortController();
  // Every one, not just the first: a group SIGTERM (or Ctrl-C) reaches this process and then its
  // supervisor, which sends its own; with no listener left, that one would end the process at once,
  // its running activities and Chromiums with it.
  process.on('SIGTERM', () => stopRequested.abort());
  process.on('SIGINT', () => stopRequested.abort());
  // The supervisor's IPC channel closed: it died, and nobody would stop (or restart) this process.
  process.once('disconnect', () => stopRequested.abort());
  const runtime = await installWorkerRuntime(log, { metrics: config.metricsPort > 0 });
  // Before the worker exists: its interceptors and workflow-span sink are added only while tracing runs.
  const tracing = startTracing(config.tracing, config.workerKind === 'audits' ? 'worker' : config.workerKind, log);
  const metrics = await serveMetricsIfSet(
    metricsPortOf(config.metricsPort, config.workerKind),
    config.host,
    (message, err) => log.error({ err }, message),
    runtime.sdkMetrics,
  );

  const temporalUp = await waitForNamespace(config.temporalAddress, config.temporalNamespace, {
    signal: stopRequested.signal,
    security: config.temporalSecurity,
    onUnavailable: (reason) =>
      log.warn(`Temporal at ${config.temporalAddress} is not available (${reason}); waiting for it`),
  });
  if (!temporalUp) {
    await tracing.stop();
    return void (await metrics?.stop());
  }

  const db = createDb(config.databaseUrl);
  const common = {
    config,
    db,
    clock: systemClock,
    temporalAddress: config.temporalAddress,
    // Prebuilt by the supervisor when it can (keeps webpack out of this long-running process).
    workflowBundle: config.workflowBundlePath
      ? { codePath: config.workflowBundlePath }
      : await bundleWorkflows({ tracing: config.tracing !== null }),
  };
  const worker = await startWorkerOfKind(config, common);
  if (stopRequested.signal.aborted) void worker.shutdown();
  stopRequested.signal.addEventListener('abort', () => void worker.shutdown(), { once: true });
  log.info({ taskQueue: worker.worker.options.taskQueue, metricsPort: metrics?.port }, `${kind} running`);
  if (process.connected) process.send?.({ ready: true });
  // Polls survive a Temporal outage (the SDK retries them); a fatal worker error ends this process
  // and the supervisor starts another.
  await worker.done;
  await db.destroy();
  await metrics?.stop();
  await tracing.stop();
}

// Exits explicitly: the IPC channel to the supervisor would otherwise keep the process alive.
main().then(
  () => process.exit(0),
  (err) => {
    logger.fatal({ err }, 'worker failed');
    process.exit(1);
  },
);

/**
 * The worker of WORKER_KIND, its modules loaded only for it: the API, the PDF renderer and Chromium's
 * pool are no part of the audit worker's memory (46 MiB resident less, docs/operations.md), nor the
 * analyzers of the report worker's.
 */
function startWorkerOfKind(
  config: Config,
  common: CommonOptions & { workflowBundle: TemporalWorkerOptions['workflowBundle'] },
): Promise<RunningWorker> {
  if (config.workerKind === 'reports')
    return (require('./report-worker') as typeof import('./report-worker')).startReportWorker(common);
  if (config.workerKind === 'browser')
    return (require('./browser-worker') as typeof import('./browser-worker')).startBrowserWorker(common);
  const { startWorker } = require('./audit-worker') as typeof import('./audit-worker');
  const { createLiveEngine } = require('../src/audits/live-engine') as typeof import('../src/audits/live-engine');
  return startWorker({
    ...common,
    engine: createLiveEngine(config),
    // Test-mode deliveries: the mock receiver of the API this worker runs beside, unless configured.
    testWebhookMockUrl:
      config.testWebhookMockUrl ?? `${config.publicBaseUrl ?? `http://127.0.0.1:${config.port}`}/mock/webhooks`,
  });
}
