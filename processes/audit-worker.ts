import { createAuditActivities } from '../activities/audit';
import { createBrowserCompletionActivities } from '../activities/browser';
import { createCrawlActivities } from '../activities/crawl';
import { createDeliveryActivities, createWebhookHealthActivities } from '../activities/delivery';
import { createMaintenanceActivities } from '../activities/maintenance';
import { createNotificationActivities } from '../activities/notifications';
import { createReportPlanningActivities } from '../activities/report';
import { createSiteActivities } from '../activities/sites';
import type { AuditEngine } from '../src/audits/produce';
import { createReportStorage } from '../src/reports/configured-storage';
import { connectRunScheduler } from '../temporal/site-schedules';
import { startTemporalWorker, type TemporalWorkerOptions, type RunningWorker } from '../temporal/worker';
import { mailerOf, webhookWatch, type CommonOptions } from './shared-clients';

/** The Temporal worker of audits: AuditWorkflow, DeliveryWorkflow, WebhookHealthWorkflow, NotificationWorkflow, maintenance. */
export async function startWorker(
  opts: CommonOptions & {
    engine: AuditEngine;
    workflowBundle: TemporalWorkerOptions['workflowBundle'];
    testWebhookMockUrl: string;
  },
): Promise<RunningWorker> {
  const storage = createReportStorage(opts.config);
  const trigger = await connectRunScheduler(opts.temporalAddress, opts.config);
  const running = await startTemporalWorker({
    address: opts.temporalAddress,
    namespace: opts.config.temporalNamespace,
    security: opts.config.temporalSecurity,
    shutdownGraceMs: opts.config.workerShutdownGraceMs,
    taskQueue: opts.config.taskQueue,
    workflowBundle: opts.workflowBundle,
    activities: {
      ...createAuditActivities({ db: opts.db, clock: opts.clock, engine: opts.engine }),
      ...createCrawlActivities({ db: opts.db, clock: opts.clock, config: opts.config }),
      ...createBrowserCompletionActivities({ db: opts.db, clock: opts.clock }),
      ...createMaintenanceActivities({ db: opts.db, clock: opts.clock, storage }),
      ...createReportPlanningActivities({ db: opts.db }),
      ...createDeliveryActivities({
        db: opts.db,
        clock: opts.clock,
        timeoutMs: opts.config.deliveryTimeoutMs,
        allow: opts.config.outboundAllow,
        testMockUrl: opts.testWebhookMockUrl,
        watch: webhookWatch(trigger.client, opts.config),
      }),
      ...createWebhookHealthActivities({ db: opts.db, clock: opts.clock, mailer: mailerOf(opts) }),
      ...createNotificationActivities({ ...opts, mailer: mailerOf(opts), testMockUrl: opts.testWebhookMockUrl }),
      ...createSiteActivities({ ...opts, scheduler: trigger.scheduler }),
    },
  });
  const done = running.done.finally(trigger.close);
  return { ...running, done, shutdown: () => running.shutdown().then(() => done) };
}
