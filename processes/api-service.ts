import { createReportStorage } from '../src/reports/configured-storage';
import { SigningKeyring } from '../src/reports/signing-keys';
import { TemporalReportRenders } from '../temporal/report-control';
import { KeyAuthenticator } from '../src/accounts/authenticator';
import { createApp, errorDocsUrl } from '../src/api/app';
import { ReadModel } from '../src/api/read-model';
import { ChangeFeed } from '../src/db/change-feed';
import type { HealthProbe, HealthReport } from '../src/api/routes/system';
import type { SupervisedState } from '../src/supervision/supervisor';
import { deliverySettings } from '../src/config';
import type { Db } from '../src/db/knex';
import { TemporalAuditScheduler } from '../temporal/audit-scheduler';
import { runReconciler } from '../src/audits/reconciler';
import { connectClient, type TemporalClientBundle } from '../temporal/connection';
import { ensurePruneSchedule } from '../temporal/schedules';
import { startSiteSchedules } from '../temporal/site-schedules';
import { TemporalDeliveryControl } from '../temporal/delivery-control';
import { dashboardMiddleware } from '../src/dashboard/router';
import type { DashboardDeps } from '../src/dashboard/deps';
import type { Logger } from 'pino';
import { serveApi } from './api-server';
import { trackAuditBacklog } from '../src/observability/metrics';
import { mailerOf, webhookWatch, type CommonOptions } from './shared-clients';

export interface RunningApi {
  /** e.g. http://127.0.0.1:3000 */
  url: string;
  temporal: TemporalClientBundle;
  authenticator: KeyAuthenticator;
  /** The port of its internal /metrics listener (METRICS_PORT + 3); undefined without METRICS_PORT or if taken. */
  metricsPort?: number;
  stop(): Promise<void>;
}

/** The HTTP API: reads Postgres projections, starts workflows through the Temporal client. */
export async function startApi(
  opts: CommonOptions & {
    databaseUrl: string;
    /** States of the worker processes audits need, by component name (e.g. worker, report_worker); {} when run elsewhere. */
    workers: () => Record<string, SupervisedState>;
    /** Where the one line per request goes (the process's logger by default). */
    accessLog?: Logger;
  },
): Promise<RunningApi> {
  const { config, db, clock } = opts;
  const temporal = await connectClient(opts.temporalAddress, config.temporalNamespace, config.temporalSecurity);
  const authenticator = new KeyAuthenticator(db, clock);
  await ensurePruneSchedule(temporal.client, config.taskQueue);
  const changes = new ChangeFeed(opts.databaseUrl);
  await changes.start();
  const readModel = new ReadModel(db, changes, authenticator);
  const keyring = new SigningKeyring(db, changes);
  const scheduler = new TemporalAuditScheduler(temporal.client, temporal.connection, config.taskQueue);
  await scheduler.probe();
  // Makes the workflow starts a crash or a Temporal outage left owed (README "Reliability").
  const reconciler = runReconciler({
    db,
    config,
    scheduler,
    giveUpMs: config.auditStartGiveUpMs,
    intervalMs: config.auditReconcileIntervalMs,
    log: opts.log,
  });
  const { schedules: siteSchedules, stop: stopSites } = startSiteSchedules(temporal.client, db, config, opts.log);
  const health = healthProbe({ db, temporal, workers: opts.workers });
  const stopTrackingBacklog = trackAuditBacklog(() => auditBacklog(db));
  let url = '';
  const app = createApp({
    db,
    config,
    clock,
    authenticator,
    readModel,
    deliveries: new TemporalDeliveryControl(temporal.client, config.taskQueue, deliverySettings(config)),
    watch: webhookWatch(temporal.client, config),
    reports: new TemporalReportRenders(temporal.client, config.reportTaskQueue),
    storage: createReportStorage(config),
    keyring,
    health,
    scheduler,
    siteSchedules,
    baseUrl: () => config.publicBaseUrl ?? url,
    log: opts.log,
    accessLog: opts.accessLog,
  });
  // The customer dashboard shares the API's app and port (docs/dashboard.md).
  const dashboard = { db, clock, config, temporal, scheduler, keyring, siteSchedules, changes, log: opts.log };
  app.use(dashboardMiddleware(dashboardDeps(dashboard, () => config.publicBaseUrl ?? url)));
  const listening = await serveApi(
    app,
    config,
    { docsUrl: errorDocsUrl({ config, baseUrl: () => config.publicBaseUrl ?? url }), clock },
    opts.log ?? (() => undefined),
  );
  url = `http://${localHost(config.host)}:${listening.port}`;
  return {
    url,
    temporal,
    authenticator,
    metricsPort: listening.metricsPort,
    async stop() {
      await listening.stop();
      health.stop();
      stopTrackingBacklog();
      await changes.stop();
      await authenticator.close();
      await reconciler.stop();
      await stopSites();
      await temporal.connection.close();
    },
  };
}

/** How this machine reaches the API it listens on at `host` (a wildcard address: through loopback). */
function localHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** What the dashboard's pages need: the same clients and rules as the API's routes, and the mailer. */
function dashboardDeps(
  input: Omit<DashboardDeps, 'baseUrl' | 'mailer' | 'deliveries' | 'watch' | 'reports'> & {
    temporal: TemporalClientBundle;
  },
  baseUrl: () => string,
): DashboardDeps {
  const { temporal, ...shared } = input;
  return {
    ...shared,
    baseUrl,
    mailer: mailerOf(input),
    deliveries: new TemporalDeliveryControl(temporal.client, input.config.taskQueue, deliverySettings(input.config)),
    watch: webhookWatch(temporal.client, input.config),
    reports: new TemporalReportRenders(temporal.client, input.config.reportTaskQueue),
  };
}

/** Audits queued and running, for the backlog gauge of /metrics. */
async function auditBacklog(db: Db): Promise<Record<'queued' | 'running', number>> {
  const rows: Array<{ status: string; count: string }> = await db('audits')
    .whereIn('status', ['queued', 'running'])
    .groupBy('status')
    .select('status')
    .count('* as count');
  const count = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
  return { queued: count('queued'), running: count('running') };
}

/** Temporal is probed every 5 s, every second while it is down so its return shows at once. */
const TEMPORAL_PROBE_MS = { up: 5000, down: 1000 };

function healthProbe(deps: {
  db: Db;
  temporal: TemporalClientBundle;
  workers: () => Record<string, SupervisedState>;
}): HealthProbe & { stop(): void } {
  let temporalUp = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const checkTemporal = async (): Promise<boolean> => {
    try {
      await deps.temporal.connection.withDeadline(Date.now() + 2000, () =>
        deps.temporal.connection.workflowService.getSystemInfo({}),
      );
      temporalUp = true;
    } catch {
      temporalUp = false;
    }
    return temporalUp;
  };
  // Keeps the cheap liveness answer current without a Temporal call per request.
  const probeLater = () => {
    if (stopped) return;
    timer = setTimeout(
      () => void checkTemporal().then(probeLater),
      temporalUp ? TEMPORAL_PROBE_MS.up : TEMPORAL_PROBE_MS.down,
    );
    timer.unref();
  };
  void checkTemporal().then(probeLater);
  const report = (components: Record<string, string>): HealthReport => ({
    ok: Object.values(components).every((state) => state === 'up'),
    components,
  });
  const upOrDown = (up: boolean) => (up ? 'up' : 'down');
  return {
    live: () => report({ api: 'up', temporal: upOrDown(temporalUp), ...deps.workers() }),
    ready: async () => {
      const [database, temporal] = await Promise.all([
        deps.db.raw('select 1').then(
          () => true,
          () => false,
        ),
        checkTemporal(),
      ]);
      return report({ api: 'up', temporal: upOrDown(temporal), ...deps.workers(), database: upOrDown(database) });
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
