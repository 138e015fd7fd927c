import path from 'node:path';
import { parseCidrSetting, type CidrList } from './outbound/policy';

/** Every environment knob of the service, parsed once, in one typed place. */
export interface Config {
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  /** Port of the embedded Postgres `npm start` runs when DATABASE_URL is unset. */
  embeddedPostgresPort: number;
  /** Rendered PDF reports (filesystem storage). */
  reportsDir: string;
  /** How long GET /audits/{id}/pdf waits for a render before answering 202. */
  reportWaitMs: number;
  /** A font file (`file.ttc#PostScriptName` for collections) for text DejaVu cannot show; else an installed CJK font. */
  reportFallbackFont: string | undefined;
  temporalAddress: string | undefined;
  temporalPort: number;
  temporalNamespace: string;
  taskQueue: string;
  /** Task queue of the report worker process: renders are CPU-heavy, so they run apart from crawls. */
  reportTaskQueue: string;
  /** OUTBOUND_ALLOW_CIDRS: addresses exempt from the outbound block list (crawls, webhooks). */
  outboundAllow: CidrList;
  auditRetryDelaysMs: number[];
  /** An audit attempt whose worker stops heartbeating this long is restarted on another worker. */
  auditHeartbeatTimeoutMs: number;
  /** How often each API instance makes the workflow starts a crash or a Temporal outage left owed. */
  auditReconcileIntervalMs: number;
  /** An owed workflow start still impossible after this long is refunded: the audit fails uncharged. */
  auditStartGiveUpMs: number;
  deliveryRetryDelaysMs: number[];
  deliveryTimeoutMs: number;
  /** Manual redelivery stays possible this long after the original event (7 days). */
  redeliveryWindowMs: number;
  testWebhookMockUrl: string | undefined;
  docsUrl: string | undefined;
  publicBaseUrl: string | undefined;
  maxBodyBytes: number;
  trustProxy: boolean;
  /** Failed authentications (bad or unknown keys) one client address may make per 60 s before 429. */
  authFailureLimit: number;
  /** What `npm start` runs in this process tree (SERVICE_ROLES=api,worker by default). */
  roles: { api: boolean; worker: boolean };
  /** Which worker a worker process is (set by its supervisor): audits, deliveries and maintenance, or PDF reports. */
  workerKind: 'audits' | 'reports';
  /** The workflow bundle its supervisor prebuilt for a worker process; unset: the worker bundles itself. */
  workflowBundlePath: string | undefined;
  /** MAIL_TRANSPORT: an smtp:// or smtps:// URL sends mail through it; unset, mail goes to the mail_outbox table. */
  mailTransport: string | undefined;
  /** MAIL_FROM: the sender of the dashboard's mail (invitations). */
  mailFrom: string;
  /** LOG_LEVEL: the least severe level that is logged (info by default). */
  logLevel: string;
  /** METRICS_PORT: the audit worker's /metrics (the report worker's is the next port); unset or 0: off. */
  metricsPort: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** LOG_LEVEL, checked: one of pino's levels, info when unset. */
export function logLevel(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'info';
  const level = raw.toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return level;
}

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function delays(name: string, raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw === '') return fallback;
  return raw.split(',').map((part) => integer(name, part.trim(), 0));
}

function workerKind(raw: string | undefined): Config['workerKind'] {
  if (raw === undefined || raw === '' || raw === 'audits') return 'audits';
  if (raw === 'reports') return 'reports';
  throw new Error(`WORKER_KIND must be audits or reports, got "${raw}"`);
}

function roles(raw: string | undefined): Config['roles'] {
  const names = (raw || 'api,worker').split(',').map((r) => r.trim());
  const unknown = names.filter((r) => r !== 'api' && r !== 'worker');
  if (unknown.length || names.length === 0) throw new Error(`SERVICE_ROLES must list api and/or worker, got "${raw}"`);
  return { api: names.includes('api'), worker: names.includes('worker') };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || path.join(__dirname, '..', '.data'));
  return {
    port: integer('PORT', env.PORT, 3000),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    embeddedPostgresPort: integer('EMBEDDED_POSTGRES_PORT', env.EMBEDDED_POSTGRES_PORT, 54329),
    reportsDir: path.resolve(env.REPORT_STORAGE_DIR || path.join(dataDir, 'reports')),
    reportWaitMs: integer('REPORT_WAIT_MS', env.REPORT_WAIT_MS, 10_000),
    reportFallbackFont: env.REPORT_FALLBACK_FONT || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalPort: integer('TEMPORAL_PORT', env.TEMPORAL_PORT, 7233),
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'audits',
    reportTaskQueue: env.REPORT_TASK_QUEUE || `${env.TEMPORAL_TASK_QUEUE || 'audits'}-reports`,
    outboundAllow: parseCidrSetting('OUTBOUND_ALLOW_CIDRS', env.OUTBOUND_ALLOW_CIDRS),
    auditRetryDelaysMs: delays('AUDIT_RETRY_DELAYS_MS', env.AUDIT_RETRY_DELAYS_MS, [30_000, 120_000, 480_000]),
    auditHeartbeatTimeoutMs: integer('AUDIT_HEARTBEAT_TIMEOUT_MS', env.AUDIT_HEARTBEAT_TIMEOUT_MS, 10_000),
    auditReconcileIntervalMs: integer('AUDIT_RECONCILE_INTERVAL_MS', env.AUDIT_RECONCILE_INTERVAL_MS, 5000),
    auditStartGiveUpMs: integer('AUDIT_START_GIVE_UP_MS', env.AUDIT_START_GIVE_UP_MS, 24 * 3600_000),
    deliveryRetryDelaysMs: delays(
      'DELIVERY_RETRY_DELAYS_MS',
      env.DELIVERY_RETRY_DELAYS_MS,
      [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000],
    ),
    deliveryTimeoutMs: integer('DELIVERY_TIMEOUT_MS', env.DELIVERY_TIMEOUT_MS, 5000),
    redeliveryWindowMs: integer('REDELIVERY_WINDOW_MS', env.REDELIVERY_WINDOW_MS, 7 * 24 * 3600_000),
    testWebhookMockUrl: env.TEST_WEBHOOK_MOCK_URL || undefined,
    docsUrl: env.DOCS_URL || undefined,
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    maxBodyBytes: 64 * 1024,
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    authFailureLimit: integer('AUTH_FAILURE_LIMIT', env.AUTH_FAILURE_LIMIT, 60),
    roles: roles(env.SERVICE_ROLES),
    workerKind: workerKind(env.WORKER_KIND),
    workflowBundlePath: env.WORKFLOW_BUNDLE_PATH || undefined,
    mailTransport: env.MAIL_TRANSPORT || undefined,
    mailFrom: env.MAIL_FROM || 'Domain audits <no-reply@localhost>',
    logLevel: logLevel(env.LOG_LEVEL),
    metricsPort: integer('METRICS_PORT', env.METRICS_PORT, 0),
  };
}
