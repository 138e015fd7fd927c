import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createAuditActivities,
  createDeliveryActivities,
  createMaintenanceActivities,
  createReportPlanningActivities,
  createReportRenderingActivities,
} from '../activities';
import { FileReportStorage } from './reports/storage';
import { SigningKeyring } from './reports/signing-keys';
import { TemporalReportRenders } from '../temporal/report-control';
import { parseCidrList } from './outbound/policy';
import { KeyAuthenticator } from './accounts/authenticator';
import { createApp } from './api/app';
import { ReadModel } from './api/read-model';
import { ChangeFeed } from './db/change-feed';
import type { HealthProbe } from './api/routes/system';
import type { AuditEngine } from './audits/produce';
import type { Clock } from './clock';
import type { Config } from './config';
import type { Db } from './db/knex';
import { TemporalAuditScheduler } from '../temporal/audit-scheduler';
import { connectClient, type TemporalClientBundle } from '../temporal/connection';
import { startTemporalWorker, type TemporalWorkerOptions, type RunningWorker } from '../temporal/worker';
import { ensurePruneSchedule } from '../temporal/schedules';
import { TemporalDeliveryControl } from '../temporal/delivery-control';

interface CommonOptions {
  config: Config;
  db: Db;
  clock: Clock;
  temporalAddress: string;
  log?: (message: string, err?: unknown) => void;
}

export interface RunningApi {
  /** e.g. http://127.0.0.1:3000 */
  url: string;
  temporal: TemporalClientBundle;
  authenticator: KeyAuthenticator;
  stop(): Promise<void>;
}

/** The HTTP API: reads Postgres projections, starts workflows through the Temporal client. */
export async function startApi(opts: CommonOptions & { databaseUrl: string; workerRunning: () => boolean }): Promise<RunningApi> {
  const { config, db, clock } = opts;
  const temporal = await connectClient(opts.temporalAddress, config.temporalNamespace);
  const authenticator = new KeyAuthenticator(db, clock);
  await ensurePruneSchedule(temporal.client, config.taskQueue);
  const changes = new ChangeFeed(opts.databaseUrl);
  await changes.start();
  const readModel = new ReadModel(db, changes, authenticator);
  const keyring = new SigningKeyring(db, changes);
  const health = healthProbe({ db, temporal, workerRunning: opts.workerRunning });
  let url = '';
  const app = createApp({
    db,
    config,
    clock,
    authenticator,
    readModel,
    deliveries: new TemporalDeliveryControl(temporal.client),
    reports: new TemporalReportRenders(temporal.client, config.reportTaskQueue),
    storage: new FileReportStorage(config.reportsDir),
    keyring,
    health,
    scheduler: new TemporalAuditScheduler(temporal.client, temporal.connection, config.taskQueue),
    baseUrl: () => config.publicBaseUrl ?? url,
    log: opts.log,
  });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    temporal,
    authenticator,
    async stop() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closing;
      health.stop();
      await changes.stop();
      await authenticator.close();
      await temporal.connection.close();
    },
  };
}

/** The Temporal worker of audits: AuditWorkflow, DeliveryWorkflow, maintenance, and their activities. */
export async function startWorker(
  opts: CommonOptions & { engine: AuditEngine; workflowBundle: TemporalWorkerOptions['workflowBundle']; testWebhookMockUrl: string },
): Promise<RunningWorker> {
  const storage = new FileReportStorage(opts.config.reportsDir);
  return startTemporalWorker({
    address: opts.temporalAddress,
    namespace: opts.config.temporalNamespace,
    taskQueue: opts.config.taskQueue,
    workflowBundle: opts.workflowBundle,
    activities: {
      ...createAuditActivities({ db: opts.db, clock: opts.clock, engine: opts.engine }),
      ...createMaintenanceActivities({ db: opts.db, clock: opts.clock, storage }),
      ...createReportPlanningActivities({ db: opts.db }),
      ...createDeliveryActivities({
        db: opts.db,
        clock: opts.clock,
        timeoutMs: opts.config.deliveryTimeoutMs,
        allow: parseCidrList(opts.config.outboundAllowCidrs),
        testMockUrl: opts.testWebhookMockUrl,
      }),
    },
  });
}

/**
 * The report worker (its own process under `npm start`): ReportWorkflow and the PDF render on
 * REPORT_TASK_QUEUE. Renders are CPU-bound and synchronous; apart from the audit worker they never
 * hold up crawls, their heartbeats or workflow tasks, and their memory is not the crawler's.
 */
export async function startReportWorker(opts: CommonOptions & { workflowBundle: TemporalWorkerOptions['workflowBundle'] }): Promise<RunningWorker> {
  return startTemporalWorker({
    address: opts.temporalAddress,
    namespace: opts.config.temporalNamespace,
    taskQueue: opts.config.reportTaskQueue,
    workflowBundle: opts.workflowBundle,
    // One render at a time per process: CPU-bound, so more would only share the same core.
    maxConcurrentActivities: 1,
    activities: createReportRenderingActivities({ db: opts.db, clock: opts.clock, storage: new FileReportStorage(opts.config.reportsDir) }),
  });
}

function healthProbe(deps: { db: Db; temporal: TemporalClientBundle; workerRunning: () => boolean }): HealthProbe & { stop(): void } {
  let temporalOk = false;
  const checkTemporal = async (): Promise<boolean> => {
    try {
      await deps.temporal.connection.withDeadline(Date.now() + 2000, () => deps.temporal.connection.workflowService.getSystemInfo({}));
      temporalOk = true;
    } catch {
      temporalOk = false;
    }
    return temporalOk;
  };
  void checkTemporal();
  // Keep the cheap liveness answer current without a Temporal call per request.
  const timer = setInterval(() => void checkTemporal(), 5000);
  timer.unref();
  return {
    live: () => {
      const checks = { api: true, worker: deps.workerRunning(), temporal: temporalOk };
      return { ok: Object.values(checks).every(Boolean), checks };
    },
    ready: async () => {
      const [database, temporal] = await Promise.all([deps.db.raw('select 1').then(() => true, () => false), checkTemporal()]);
      const checks = { api: true, worker: deps.workerRunning(), temporal, database };
      return { ok: Object.values(checks).every(Boolean), checks };
    },
    stop: () => clearInterval(timer),
  };
}
