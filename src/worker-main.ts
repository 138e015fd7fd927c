import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createLiveEngine } from './audits/live-engine';
import { systemClock } from './clock';
import { loadConfig } from './config';
import { createDb } from './db/knex';
import { startReportWorker, startWorker } from './service';
import { bundleWorkflows } from '../temporal/worker';

/**
 * A worker process `npm start` runs beside the API (own process, so audits being worked on do not
 * slow API responses down): WORKER_KIND=audits (default) for audits, deliveries and maintenance,
 * WORKER_KIND=reports for PDF renders. Needs DATABASE_URL and TEMPORAL_ADDRESS; stops on SIGTERM/SIGINT.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl || !config.temporalAddress) throw new Error('the worker needs DATABASE_URL and TEMPORAL_ADDRESS');
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const db = createDb(config.databaseUrl);
  const common = {
    config,
    db,
    clock: systemClock,
    temporalAddress: config.temporalAddress,
    // Prebuilt by the supervisor when it can (keeps webpack out of this long-running process).
    workflowBundle: process.env.WORKFLOW_BUNDLE_PATH ? { codePath: process.env.WORKFLOW_BUNDLE_PATH } : await bundleWorkflows(),
  };
  const worker =
    process.env.WORKER_KIND === 'reports'
      ? await startReportWorker(common)
      : await startWorker({
          ...common,
          engine: createLiveEngine(config),
          // Test-mode deliveries: the mock receiver of the API this worker runs beside, unless configured.
          testWebhookMockUrl: config.testWebhookMockUrl ?? `${config.publicBaseUrl ?? `http://127.0.0.1:${config.port}`}/mock/webhooks`,
        });
  const stop = async () => {
    await worker.shutdown();
    await db.destroy();
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  process.send?.({ ready: true });
  await worker.done;
  await db.destroy().catch(() => undefined);
}

main().catch((err) => {
  console.error('[worker] failed:', err);
  process.exit(1);
});
