import { createHash, timingSafeEqual } from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { KeyAuthenticator } from '../accounts/authenticator';
import type { AuditScheduler } from '../audits/scheduler';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { ApiError } from '../errors';
import type { ApiState } from './context';
import type { ReadModel } from './read-model';
import { authenticate, limitRetrieval } from './middleware/auth';
import { envelope } from './middleware/envelope';
import { observeRequests } from './middleware/observe';
import { tracingActive } from '../observability/tracing';
import { traceRequests } from '../observability/http-tracing';
import { httpPreconditions } from './middleware/http-preconditions';
import { logger as processLogger } from '../observability/logger';
import { metricsContentType, renderMetrics } from '../observability/metrics';
import { auditRoutes } from './routes/audits';
import { auditPageRoutes } from './routes/audit-pages';
import { auditExportRoutes } from './routes/audit-exports';
import { brandingRoutes } from './routes/branding';
import { docsRoutes } from './routes/docs';
import { mockReceiverRoutes } from './routes/mock-receiver';
import { notificationChannelRoutes } from './routes/notification-channels';
import { reportLinkRoutes } from './routes/report-links';
import { reportRoutes, type ReportRouteDeps } from './routes/reports';
import { shareRoutes } from './routes/shares';
import { siteRoutes, type SiteRouteDeps } from './routes/sites';
import { systemRoutes, type HealthProbe } from './routes/system';
import { usageRoutes } from './routes/usage';
import { webhookRoutes, type WebhookRouteDeps } from './routes/webhooks';

export interface AppDeps {
  db: Db;
  config: Config;
  clock: Clock;
  scheduler: AuditScheduler;
  authenticator: KeyAuthenticator;
  readModel: ReadModel;
  deliveries: WebhookRouteDeps['deliveries'];
  /** Where failing webhooks are reported: their WebhookHealthWorkflow (nowhere when unset). */
  watch?: WebhookRouteDeps['watch'];
  reports: ReportRouteDeps['reports'];
  storage: ReportRouteDeps['storage'];
  keyring: ReportRouteDeps['keyring'];
  /** The sites' Temporal Schedules (temporal/site-schedules.ts). */
  siteSchedules: SiteRouteDeps['siteSchedules'];
  health: HealthProbe;
  /** Public base URL of this API (for links in the OpenAPI document and error envelopes). */
  baseUrl: () => string;
  log?: (message: string, err?: unknown) => void;
  /** Where the one line per request goes (the process's logger by default). */
  accessLog?: Logger;
}

/** The Koa application: request id → error envelope → public routes | auth → /v1 routes. */
export function createApp(deps: AppDeps): Koa<ApiState> {
  // Behind a reverse proxy (TRUST_PROXY=1) the client address comes from X-Forwarded-For.
  const app = new Koa<ApiState>({ proxy: deps.config.trustProxy });
  const log = deps.log ?? ((message, err) => processLogger.error({ err }, message));
  // A span per request when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT; docs/operations.md "Traces").
  if (tracingActive()) app.use(traceRequests());
  app.use(observeRequests(deps.accessLog ?? processLogger));
  app.use(
    envelope({
      docsUrl: errorDocsUrl(deps),
      clock: deps.clock,
      log,
    }),
  );
  app.use(httpPreconditions);
  app.use(rejectUnmatchedMethods);
  // Scraped on the public port with METRICS_TOKEN only; METRICS_PORT serves it inside (README "Metrics and logs").
  if (deps.config.metricsToken) app.use(metricsRoute(deps.config.metricsToken).routes());

  const system = systemRoutes({
    health: deps.health,
    apiBaseUrl: () => `${deps.baseUrl()}/v1`,
    docsUrl: errorDocsUrl(deps),
  });
  app.use(system.routes());
  app.use(docsRoutes().routes());
  app.use(mockReceiverRoutes().routes());
  app.use(reportLinkRoutes(deps).routes());

  const v1 = new Router<ApiState>({ prefix: '/v1' });
  v1.use(
    authenticate({
      authenticator: deps.authenticator,
      readModel: deps.readModel,
      clock: deps.clock,
      failureLimit: deps.config.authFailureLimit,
    }),
  );
  v1.use(limitRetrieval({ db: deps.db, clock: deps.clock }));
  for (const routes of [
    auditRoutes(deps),
    auditPageRoutes(deps),
    auditExportRoutes({ db: deps.db, readModel: deps.readModel, pageBudgets: deps.config.pageBudgets, log }),
    usageRoutes(),
    webhookRoutes(deps),
    reportRoutes(deps),
    brandingRoutes(deps),
    siteRoutes(deps),
    shareRoutes(deps),
    notificationChannelRoutes(deps),
  ])
    v1.use(routes.routes());
  app.use(v1.routes());
  app.use(v1.allowedMethods());
  app.use(system.allowedMethods());
  return app;
}

/** Where `docs_url` points; resolved per response: the listening address is known only once the server is up. */
export function errorDocsUrl(deps: Pick<AppDeps, 'config' | 'baseUrl'>): () => string {
  return () => deps.config.docsUrl ?? `${deps.baseUrl()}/docs/errors`;
}

/**
 * GET /metrics on the public port, for a scraper sending `Authorization: Bearer <METRICS_TOKEN>`. Any other request
 * (no header, another scheme, a wrong token) goes on as if the route did not exist, so it gets an unknown path's 404
 * (the envelope, or the dashboard's page for a browser) rather than a 401: whether this port serves metrics, or has
 * a token at all, stays unknown to whoever does not hold it. Prometheus still names the 404 on a misconfigured target.
 */
function metricsRoute(token: string): Router<ApiState> {
  const expected = sha256(token);
  return new Router<ApiState>().get('/metrics', async (ctx, next) => {
    const sent = /^bearer +(\S+) *$/i.exec(ctx.get('Authorization'))?.[1];
    // Digests of equal length: the comparison's time tells nothing, not even the token's length.
    if (sent === undefined || !timingSafeEqual(sha256(sent), expected)) return next();
    ctx.body = await renderMetrics();
    ctx.type = metricsContentType;
    ctx.set('Cache-Control', 'no-store');
  });
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Turns the router's bare 405/501 (known path, other method) into the error envelope. */
const rejectUnmatchedMethods: Koa.Middleware<ApiState> = async (ctx, next) => {
  await next();
  if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) {
    const allow = ctx.response.get('Allow');
    throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, {
      Allow: allow,
    });
  }
};
