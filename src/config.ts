import fs from 'node:fs';
import path from 'node:path';
import { parsePageBudgets, type PageBudgets } from './page-budgets';
import { parseCidrSetting, type CidrList } from './outbound/policy';
import { checkMetricsPort, checkMetricsToken } from './observability/metrics-config';
import { tracingSettings, type TracingSettings } from './observability/tracing-config';
import { RENDER_TIMEOUT_MS } from './render-timeout';
import { delays, integer } from './env-parsing';
import { webhookSettings, type WebhookSettings } from './webhook-settings';

/** Every environment knob of the service, parsed once, in one typed place (webhooks: src/webhook-settings.ts). */
export interface Config extends WebhookSettings {
  port: number;
  /** HOST: the address the API and the workers' /metrics listen on (loopback by default; 0.0.0.0 for other machines). */
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** Port of the embedded Postgres `npm start` runs when DATABASE_URL is unset. */
  embeddedPostgresPort: number;
  /** Rendered PDF reports (filesystem storage). */
  reportsDir: string;
  /** REPORT_STORAGE_URL=s3://bucket/prefix: reports in an S3-compatible store instead (README "Reports in object storage"). */
  reportObjectStore: ReportObjectStore | null;
  /** How long GET /audits/{id}/pdf waits for a render before answering 202. */
  reportWaitMs: number;
  /** A font file (`file.ttc#PostScriptName` for collections) for text DejaVu cannot show; else an installed CJK font. */
  reportFallbackFont: string | undefined;
  temporalAddress: string | undefined;
  temporalPort: number;
  temporalNamespace: string;
  /** TEMPORAL_TLS_* and TEMPORAL_API_KEY: how every connection to Temporal authenticates (docs/operations.md). */
  temporalSecurity: TemporalSecurity;
  taskQueue: string;
  /** Task queue of the report worker process: renders are CPU-heavy, so they run apart from crawls. */
  reportTaskQueue: string;
  /** Live audits' browser stage (BROWSER_STAGE=off: none): BROWSER_TASK_QUEUE, BROWSER_STAGE_TIMEOUT_MS (30 min). */
  browserStage: { taskQueue: string; timeoutMs: number } | null;
  /** BROWSER_CONCURRENCY: pages a browser worker renders at once (one Chromium each). */
  browserConcurrency: number;
  /** BROWSER_RENDER_TIMEOUT_MS: how long a rendered page may take to paint and load (1,000–30,000; 30,000). */
  browserRenderTimeoutMs: number;
  /** PAGE_BUDGETS: pages answering HTML an audit of each tier may crawl (free 100 … enterprise 1,000,000). */
  pageBudgets: PageBudgets;
  /** EXTERNAL_CHECK_BUDGET: distinct external link targets and subresources an audit checks at most (100,000). */
  externalCheckBudget: number;
  /** CRAWL_STEP_PAGES (500) pages per checkpointed crawl step; CRAWL_CONCURRENCY_PER_HOST (4) per audit. */
  crawl: { stepPages: number; concurrencyPerHost: number };
  /** CHROMIUM_PATH: the browser worker's Chromium (Debian's package by default). */
  chromiumPath: string;
  /** OUTBOUND_ALLOW_CIDRS: addresses exempt from the outbound block list (crawls, webhooks). */
  outboundAllow: CidrList;
  auditRetryDelaysMs: number[];
  /** An audit attempt whose worker stops heartbeating this long is restarted on another worker. */
  auditHeartbeatTimeoutMs: number;
  /** How often each API instance makes the workflow starts a crash or a Temporal outage left owed. */
  auditReconcileIntervalMs: number;
  /** An owed workflow start still impossible after this long is refunded: the audit fails uncharged. */
  auditStartGiveUpMs: number;
  docsUrl: string | undefined;
  publicBaseUrl: string | undefined;
  maxBodyBytes: number;
  trustProxy: boolean;
  /** Failed authentications (bad or unknown keys) one client address may make per 60 s before 429. */
  authFailureLimit: number;
  /** Dashboard sign-ups one client address may make per hour (SIGNUP_LIMIT, 10; docs/decisions.md). */
  signupLimit: number;
  /** What `npm start` runs in this process tree (SERVICE_ROLES; all of them by default). */
  roles: Record<ServiceRole, boolean>;
  /** WORKER_SHUTDOWN_GRACE_MS: on SIGTERM a worker lets running activities finish this long, then hands them back. */
  workerShutdownGraceMs: number;
  /** API_DRAIN_MS: on SIGTERM the API lets requests in flight finish this long, then closes their connections. */
  apiDrainMs: number;
  /** Which worker a worker process is (set by its supervisor): audits, deliveries and maintenance, or PDF reports. */
  workerKind: 'audits' | 'reports' | 'browser';
  /** The workflow bundle its supervisor prebuilt for a worker process; unset: the worker bundles itself. */
  workflowBundlePath: string | undefined;
  /** MAIL_TRANSPORT: an smtp:// or smtps:// URL sends mail through it; unset, mail goes to the mail_outbox table. */
  mailTransport: string | undefined;
  /** MAIL_FROM: the sender of the dashboard's mail (invitations). */
  mailFrom: string;
  /** LOG_LEVEL: the least severe level that is logged (info by default). */
  logLevel: string;
  /** METRICS_PORT: /metrics listeners, one port per process (METRICS_PORT_OFFSETS); unset or 0: none. */
  metricsPort: number;
  /** METRICS_TOKEN: the API's /metrics on its public port answers `Authorization: Bearer <it>`; unset: 404 there. */
  metricsToken: string | undefined;
  /** SITE_SCHEDULE_OVERRIDE_MS: every site's schedule fires at this interval instead of its own (tests, operators); unset or 0: off. */
  siteScheduleOverrideMs: number;
  /** OTEL_EXPORTER_OTLP_ENDPOINT and the other standard OTEL_* variables: trace export over OTLP/HTTP; null: off. */
  tracing: TracingSettings | null;
}

export interface ReportObjectStore {
  bucket: string;
  /** Key prefix: '' or ending in '/'. */
  prefix: string;
  /** S3_ENDPOINT: an S3-compatible server (addressed path-style); unset: AWS S3 itself. */
  endpoint: string | undefined;
  /** S3_REGION (or AWS_REGION); us-east-1 when unset. */
  region: string;
  /** AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); unset: the AWS SDK's default chain (roles, profiles). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
}

function reportObjectStore(env: NodeJS.ProcessEnv): ReportObjectStore | null {
  const raw = env.REPORT_STORAGE_URL;
  if (!raw) return null;
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(raw);
  if (!match) throw new Error(`REPORT_STORAGE_URL must be s3://bucket or s3://bucket/prefix, got "${raw}"`);
  const endpoint = env.S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\/[^/]+/.test(endpoint))
    throw new Error(`S3_ENDPOINT must be an http:// or https:// URL, got "${endpoint}"`);
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  if (!accessKeyId !== !secretAccessKey)
    throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  return {
    bucket: match[1]!,
    prefix: prefix ? `${prefix}/` : '',
    endpoint,
    region: env.S3_REGION || env.AWS_REGION || 'us-east-1',
    credentials:
      accessKeyId && secretAccessKey
        ? { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) }
        : undefined,
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** LOG_LEVEL, checked: one of pino's levels, info when unset. */
export function logLevel(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'info';
  const level = raw.toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return level;
}

/**
 * 5 s by default: a webhook POST in flight (DELIVERY_TIMEOUT_MS) still finishes, and a crawl handed
 * back restarts sooner than the heartbeat time-out would notice a lost worker. Below the 30 s after
 * which `npm start` kills a worker that has not stopped (processes/worker-process.ts).
 */
function shutdownGrace(raw: string | undefined): number {
  const value = integer('WORKER_SHUTDOWN_GRACE_MS', raw, 5000);
  if (value > 25_000) throw new Error(`WORKER_SHUTDOWN_GRACE_MS must be at most 25000, got "${raw}"`);
  return value;
}

function workerKind(raw: string | undefined): Config['workerKind'] {
  if (raw === undefined || raw === '' || raw === 'audits') return 'audits';
  if (raw === 'reports' || raw === 'browser') return raw;
  throw new Error(`WORKER_KIND must be audits, reports or browser, got "${raw}"`);
}

// The browser activities' time-outs are sized for the default, so it is also the most.
function renderTimeout(raw: string | undefined): number {
  const value = integer('BROWSER_RENDER_TIMEOUT_MS', raw, RENDER_TIMEOUT_MS);
  if (value < 1000 || value > RENDER_TIMEOUT_MS)
    throw new Error(`BROWSER_RENDER_TIMEOUT_MS must be from 1000 to ${RENDER_TIMEOUT_MS}, got "${raw}"`);
  return value;
}

function browserStage(env: NodeJS.ProcessEnv): Config['browserStage'] {
  const setting = (env.BROWSER_STAGE || 'on').toLowerCase();
  if (setting !== 'on' && setting !== 'off')
    throw new Error(`BROWSER_STAGE must be on or off, got "${env.BROWSER_STAGE}"`);
  if (setting === 'off') return null;
  return {
    taskQueue: env.BROWSER_TASK_QUEUE || `${env.TEMPORAL_TASK_QUEUE || 'audits'}-browser`,
    timeoutMs: integer('BROWSER_STAGE_TIMEOUT_MS', env.BROWSER_STAGE_TIMEOUT_MS, 30 * 60_000),
  };
}

/** api: the HTTP API and dashboard; worker: audits, deliveries, maintenance; reports: PDF renders; browser: the browser stage. */
export const SERVICE_ROLES = ['api', 'worker', 'reports', 'browser'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

function roles(raw: string | undefined): Config['roles'] {
  const names = (raw || SERVICE_ROLES.join(',')).split(',').map((r) => r.trim());
  const unknown = names.filter((r) => !(SERVICE_ROLES as readonly string[]).includes(r));
  if (unknown.length) throw new Error(`SERVICE_ROLES must list some of ${SERVICE_ROLES.join(', ')}, got "${raw}"`);
  return Object.fromEntries(SERVICE_ROLES.map((role) => [role, names.includes(role)])) as Config['roles'];
}

/** TLS settings as the Temporal SDK takes them (TLSConfig), or false for plain gRPC. */
export interface TemporalSecurity {
  tls:
    | false
    | {
        clientCertPair?: { crt: Buffer; key: Buffer };
        serverRootCACertificate?: Buffer;
        serverNameOverride?: string;
      };
  /** Sent as `authorization: Bearer <key>` with every call (Temporal Cloud API keys). */
  apiKey: string | undefined;
}

function pemFile(name: string, file: string): Buffer {
  let content: Buffer;
  try {
    content = fs.readFileSync(file);
  } catch (err) {
    throw new Error(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (!content.includes('-----BEGIN ')) throw new Error(`${name}: ${file} is not a PEM file`);
  return content;
}

/**
 * mTLS with TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY (and TEMPORAL_TLS_CA / TEMPORAL_TLS_SERVER_NAME
 * for a private CA); TEMPORAL_API_KEY implies TLS, as Temporal Cloud needs, unless TEMPORAL_TLS=false.
 * Files are read here so that a wrong path stops the start, not the first connection.
 */
export function temporalSecurity(env: NodeJS.ProcessEnv): TemporalSecurity {
  const { TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_CA: ca } = env;
  const serverName = env.TEMPORAL_TLS_SERVER_NAME || undefined;
  const apiKey = env.TEMPORAL_API_KEY || undefined;
  if (!cert !== !key) throw new Error('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together');
  const explicit = (env.TEMPORAL_TLS ?? '').toLowerCase();
  if (!['', 'true', '1', 'false', '0'].includes(explicit))
    throw new Error(`TEMPORAL_TLS must be true or false, got "${env.TEMPORAL_TLS}"`);
  const wanted = explicit === '' ? Boolean(cert || ca || serverName || apiKey) : ['true', '1'].includes(explicit);
  if (!wanted && (cert || ca || serverName))
    throw new Error('TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CERT/KEY/CA/SERVER_NAME');
  if (!wanted) return { tls: false, apiKey };
  return {
    tls: {
      ...(cert && key
        ? { clientCertPair: { crt: pemFile('TEMPORAL_TLS_CERT', cert), key: pemFile('TEMPORAL_TLS_KEY', key) } }
        : {}),
      ...(ca ? { serverRootCACertificate: pemFile('TEMPORAL_TLS_CA', ca) } : {}),
      ...(serverName ? { serverNameOverride: serverName } : {}),
    },
    apiKey,
  };
}

/** The webhook delivery settings every delivery's workflow is started with. */
export function deliverySettings(config: Config): {
  retryDelaysMs: number[];
  redeliveryWindowMs: number;
  timeoutMs: number;
} {
  return {
    retryDelaysMs: config.deliveryRetryDelaysMs,
    redeliveryWindowMs: config.redeliveryWindowMs,
    timeoutMs: config.deliveryTimeoutMs,
  };
}

/** The repository's folder: above src/, or above dist/src/ when this runs compiled (src/setup/build.cjs). */
const PROJECT_ROOT = path.resolve(__dirname, path.extname(__filename) === '.js' ? '../..' : '..');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || path.join(PROJECT_ROOT, '.data'));
  return {
    port: integer('PORT', env.PORT, 3000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    embeddedPostgresPort: integer('EMBEDDED_POSTGRES_PORT', env.EMBEDDED_POSTGRES_PORT, 54329),
    reportsDir: path.resolve(env.REPORT_STORAGE_DIR || path.join(dataDir, 'reports')),
    reportObjectStore: reportObjectStore(env),
    reportWaitMs: integer('REPORT_WAIT_MS', env.REPORT_WAIT_MS, 10_000),
    reportFallbackFont: env.REPORT_FALLBACK_FONT || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalPort: integer('TEMPORAL_PORT', env.TEMPORAL_PORT, 7233),
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    temporalSecurity: temporalSecurity(env),
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'audits',
    reportTaskQueue: env.REPORT_TASK_QUEUE || `${env.TEMPORAL_TASK_QUEUE || 'audits'}-reports`,
    browserStage: browserStage(env),
    browserConcurrency: Math.max(1, integer('BROWSER_CONCURRENCY', env.BROWSER_CONCURRENCY, 1)),
    browserRenderTimeoutMs: renderTimeout(env.BROWSER_RENDER_TIMEOUT_MS),
    pageBudgets: parsePageBudgets(env.PAGE_BUDGETS),
    externalCheckBudget: integer('EXTERNAL_CHECK_BUDGET', env.EXTERNAL_CHECK_BUDGET, 100_000),
    crawl: {
      stepPages: Math.max(1, integer('CRAWL_STEP_PAGES', env.CRAWL_STEP_PAGES, 500)),
      concurrencyPerHost: Math.max(1, integer('CRAWL_CONCURRENCY_PER_HOST', env.CRAWL_CONCURRENCY_PER_HOST, 4)),
    },
    chromiumPath: env.CHROMIUM_PATH || '/usr/bin/chromium',
    outboundAllow: parseCidrSetting('OUTBOUND_ALLOW_CIDRS', env.OUTBOUND_ALLOW_CIDRS),
    auditRetryDelaysMs: delays('AUDIT_RETRY_DELAYS_MS', env.AUDIT_RETRY_DELAYS_MS, [30_000, 120_000, 480_000]),
    auditHeartbeatTimeoutMs: integer('AUDIT_HEARTBEAT_TIMEOUT_MS', env.AUDIT_HEARTBEAT_TIMEOUT_MS, 10_000),
    auditReconcileIntervalMs: integer('AUDIT_RECONCILE_INTERVAL_MS', env.AUDIT_RECONCILE_INTERVAL_MS, 5000),
    auditStartGiveUpMs: integer('AUDIT_START_GIVE_UP_MS', env.AUDIT_START_GIVE_UP_MS, 24 * 3600_000),
    ...webhookSettings(env),
    docsUrl: env.DOCS_URL || undefined,
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    maxBodyBytes: 64 * 1024,
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    authFailureLimit: integer('AUTH_FAILURE_LIMIT', env.AUTH_FAILURE_LIMIT, 60),
    signupLimit: integer('SIGNUP_LIMIT', env.SIGNUP_LIMIT, 10),
    roles: roles(env.SERVICE_ROLES),
    workerShutdownGraceMs: shutdownGrace(env.WORKER_SHUTDOWN_GRACE_MS),
    apiDrainMs: integer('API_DRAIN_MS', env.API_DRAIN_MS, 20_000),
    workerKind: workerKind(env.WORKER_KIND),
    workflowBundlePath: env.WORKFLOW_BUNDLE_PATH || undefined,
    mailTransport: env.MAIL_TRANSPORT || undefined,
    mailFrom: env.MAIL_FROM || 'Domain audits <no-reply@localhost>',
    logLevel: logLevel(env.LOG_LEVEL),
    metricsPort: checkMetricsPort(integer('METRICS_PORT', env.METRICS_PORT, 0)),
    metricsToken: checkMetricsToken(env.METRICS_TOKEN),
    siteScheduleOverrideMs: integer('SITE_SCHEDULE_OVERRIDE_MS', env.SITE_SCHEDULE_OVERRIDE_MS, 0),
    tracing: tracingSettings(env),
  };
}
