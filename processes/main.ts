import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type Config } from '../src/config';
import { systemClock } from '../src/clock';
import { createDb, migrateLatest } from '../src/db/knex';
import { openDatabase } from '../src/db/open';
import { startApi } from './api-service';
import { superviseWorker, type SupervisedWorker } from './worker-process';
import type { SupervisedState } from '../src/supervision/supervisor';
import { ensureTemporalCli } from '../src/setup/temporal-cli';
import { ensureChromium } from '../src/setup/debian-package';
import { superviseDevServer } from '../src/setup/supervised-dev-server';
import { connectClient } from '../temporal/connection';
import { registerSearchAttributes } from '../temporal/search-attributes';
import { logger } from '../src/observability/logger';
import { startTracing } from '../src/observability/tracing';

/** The worker process each worker role of SERVICE_ROLES runs (WORKER_KIND), and its /healthz component. */
const WORKER_ROLES = [
  { role: 'worker', kind: 'audits', component: 'worker' },
  { role: 'reports', kind: 'reports', component: 'report_worker' },
  // Chromium and Lighthouse in a process of their own: a crashed or memory-hungry render never
  // takes crawls down with it.
  { role: 'browser', kind: 'browser', component: 'browser_worker' },
] as const;

/**
 * `npm start`: everything a user needs locally in one process tree — Postgres (embedded when
 * DATABASE_URL is unset), the Temporal dev server with its UI (unless TEMPORAL_ADDRESS is set),
 * migrations, the two workers (child processes) and the API. The dev server and the workers are
 * supervised: restarted with capped back-off whenever they die, while the API keeps serving and
 * /healthz says what is down. SIGINT/SIGTERM stop all of it.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  logger.level = config.logLevel;
  const serviceLog = logger.child({ name: 'audit-service' });
  const log = (message: string) => serviceLog.info(message);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  let stopping = false;
  // Aborted first on shutdown: a child that the same Ctrl-C ended is not restarted meanwhile.
  const shuttingDown = new AbortController();
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    shuttingDown.abort();
    log('stopping…');
    for (const stop of stops.reverse())
      await stop().catch((err: unknown) => serviceLog.error({ err }, 'stopping failed'));
    log('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  try {
    if (!config.databaseUrl) log(`DATABASE_URL is not set: using an embedded Postgres under ${config.dataDir}`);
    const database = await openDatabase(config, { startEmbedded: true });
    stops.push(() => database.close());
    const db = createDb(database.url);
    stops.push(() => db.destroy());
    const applied = await migrateLatest(db);
    log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');

    const temporal = await startTemporal(config, log, shuttingDown.signal);
    if (temporal.stop) stops.push(temporal.stop);
    const temporalAddress = temporal.address;

    // Each worker role is a supervised child process; SERVICE_ROLES=api alone runs none (docs/operations.md).
    const workers = await superviseWorkers(
      config,
      { DATABASE_URL: database.url, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: config.temporalNamespace },
      { log, signal: shuttingDown.signal, stops },
    );
    if (!config.roles.api) return;
    // The API's spans (OTEL_EXPORTER_OTLP_ENDPOINT set): before its Temporal client is made; flushed last on stop.
    const tracing = startTracing(config.tracing, 'api', serviceLog);
    stops.push(() => tracing.stop());
    const api = await startApi({
      config,
      db,
      databaseUrl: database.url,
      clock: systemClock,
      temporalAddress,
      workers,
      log: (message, err) => serviceLog.error({ err }, message),
    });
    stops.push(() => api.stop());
    log(`API listening at ${api.url}/v1 (OpenAPI: ${api.url}/v1/openapi.json)`);
    // The workers (children) have METRICS_PORT + 0 to + 2, this process + 3 (src/observability/metrics-config.ts).
    if (api.metricsPort) log(`API metrics on ${config.host}:${api.metricsPort} (GET /metrics, no token)`);
  } catch (err) {
    serviceLog.fatal({ err }, 'failed to start');
    await shutdown(1);
  }
}

/** One supervised worker process per worker role in SERVICE_ROLES; their states for /healthz. */
async function superviseWorkers(
  config: Config,
  env: Record<string, string>,
  opts: { log: (message: string) => void; signal: AbortSignal; stops: Array<() => Promise<void>> },
): Promise<() => Record<string, SupervisedState>> {
  const kinds = WORKER_ROLES.filter(({ role }) => config.roles[role]);
  // The browser worker renders in Debian's Chromium: installed here when missing, like the test set-up does.
  if (config.roles.browser && config.browserStage) ensureChromium(config.chromiumPath, opts.log);
  const running: Array<[string, SupervisedWorker]> = [];
  for (const { kind, component } of kinds) {
    const worker = await superviseWorker({ ...process.env, ...env, WORKER_KIND: kind }, opts.log, {
      signal: opts.signal,
    });
    opts.stops.push(() => worker.stop());
    running.push([component, worker]);
  }
  // The API does not wait for them: it serves reads meanwhile, and /healthz says they are starting.
  const names = kinds.map(({ kind }) => kind).join(', ');
  if (running.length)
    void Promise.all(running.map(([, worker]) => worker.ready())).then(() => opts.log(`workers running (${names})`));
  return () => Object.fromEntries(running.map(([component, worker]) => [component, worker.state()]));
}

/**
 * The configured Temporal cluster (its search attributes registered), or else a supervised dev
 * server started here, with the way to stop it.
 */
async function startTemporal(
  config: Config,
  log: (message: string) => void,
  signal: AbortSignal,
): Promise<{ address: string; stop?: () => Promise<void> }> {
  if (config.temporalAddress) {
    const { connection } = await connectClient(
      config.temporalAddress,
      config.temporalNamespace,
      config.temporalSecurity,
    );
    await registerSearchAttributes(connection, config.temporalNamespace);
    await connection.close();
    return { address: config.temporalAddress };
  }
  const cliPath = await ensureTemporalCli(log);
  const devServer = await superviseDevServer({
    cliPath,
    port: config.temporalPort,
    dbFile: path.join(config.dataDir, 'temporal.sqlite'),
    namespace: config.temporalNamespace,
    log: (line) => log(`temporal: ${line}`),
    supervisorLog: log,
    signal,
  });
  log(`Temporal dev server at ${devServer.address}, UI at ${devServer.uiUrl}`);
  return { address: devServer.address, stop: () => devServer.stop() };
}

void main();
