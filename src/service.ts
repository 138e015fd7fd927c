import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createAuditActivities } from '../activities';
import { KeyAuthenticator } from './accounts/authenticator';
import { createApp } from './api/app';
import type { HealthProbe } from './api/routes/system';
import type { AuditEngine } from './audits/produce';
import type { Clock } from './clock';
import type { Config } from './config';
import type { Db } from './db/knex';
import { TemporalAuditScheduler } from '../temporal/audit-scheduler';
import { connectClient, type TemporalClientBundle } from '../temporal/connection';
import { startAuditWorker, type RunningWorker } from '../temporal/worker';

export interface ServiceOptions {
  config: Config;
  db: Db;
  clock: Clock;
  temporalAddress: string;
  engine: AuditEngine;
  workflowBundle: WorkflowBundleWithSourceMap;
  /** Run the API, the worker, or both in this process. */
  roles?: { api: boolean; worker: boolean };
  log?: (message: string, err?: unknown) => void;
}

export interface RunningService {
  /** e.g. http://127.0.0.1:3000 (null without the API role). */
  url: string | null;
  temporal: TemporalClientBundle;
  authenticator: KeyAuthenticator;
  stop(): Promise<void>;
}

/** Wires the API and the worker to one database and one Temporal namespace. */
export async function startService(opts: ServiceOptions): Promise<RunningService> {
  const roles = opts.roles ?? { api: true, worker: true };
  const { config, db, clock } = opts;
  const temporal = await connectClient(opts.temporalAddress, config.temporalNamespace);
  let worker: RunningWorker | null = null;
  if (roles.worker) {
    worker = await startAuditWorker({
      address: opts.temporalAddress,
      namespace: config.temporalNamespace,
      taskQueue: config.taskQueue,
      workflowBundle: opts.workflowBundle,
      activities: createAuditActivities({ db, clock, engine: opts.engine }),
    });
  }
  const authenticator = new KeyAuthenticator(db, clock);
  let server: http.Server | null = null;
  let url: string | null = null;
  if (roles.api) {
    const health = healthProbe({ db, temporal, worker });
    const app = createApp({
      db,
      config,
      clock,
      authenticator,
      health,
      scheduler: new TemporalAuditScheduler(temporal.client, temporal.connection, config.taskQueue),
      baseUrl: () => config.publicBaseUrl ?? url ?? `http://127.0.0.1:${config.port}`,
      log: opts.log,
    });
    server = http.createServer(app.callback());
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(config.port, '127.0.0.1', () => resolve());
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return {
    url,
    temporal,
    authenticator,
    async stop() {
      if (server) {
        const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        await closing;
      }
      if (worker) await worker.shutdown();
      await authenticator.close();
      await temporal.connection.close();
    },
  };
}

function healthProbe(deps: { db: Db; temporal: TemporalClientBundle; worker: RunningWorker | null }): HealthProbe {
  let temporalOk = false;
  const checkTemporal = async (): Promise<boolean> => {
    try {
      await deps.temporal.connection.withDeadline(Date.now() + 2000, () =>
        deps.temporal.connection.workflowService.getSystemInfo({}),
      );
      temporalOk = true;
    } catch {
      temporalOk = false;
    }
    return temporalOk;
  };
  void checkTemporal();
  // Keep the cheap liveness answer current without a Temporal call per request.
  setInterval(() => void checkTemporal(), 5000).unref();
  const workerOk = () => deps.worker === null || deps.worker.worker.getState() === 'RUNNING';
  return {
    live: () => {
      const checks = { api: true, worker: workerOk(), temporal: temporalOk };
      return { ok: Object.values(checks).every(Boolean), checks };
    },
    ready: async () => {
      const [database, temporal] = await Promise.all([
        deps.db.raw('select 1').then(() => true, () => false),
        checkTemporal(),
      ]);
      const checks = { api: true, worker: workerOk(), temporal, database };
      return { ok: Object.values(checks).every(Boolean), checks };
    },
  };
}
