import Router, { type RouterContext } from '@koa/router';
import { presentHealth } from '../../presenters/health';
import { ApiError, ERROR_CATALOG } from '../../errors';
import { errorBody } from '../middleware/envelope';
import { buildOpenApi } from '../openapi';
import type { ApiState } from '../context';

/** Each part the service needs, by name (api, temporal, worker, report_worker…): "up" or why not. */
export interface HealthReport {
  ok: boolean;
  components: Record<string, string>;
}

export interface HealthProbe {
  /** Cheap: are the API, Temporal and the workers up (as last seen)? */
  live(): HealthReport;
  /** Thorough: also checks the database and Temporal right now. */
  ready(): Promise<HealthReport>;
}

/** Unauthenticated routes: health, the OpenAPI document and the error reference. */
export function systemRoutes(deps: {
  health: HealthProbe;
  apiBaseUrl: () => string;
  docsUrl: () => string;
}): Router<ApiState> {
  const router = new Router<ApiState>();
  for (const prefix of ['', '/v1']) {
    router.get(`${prefix}/healthz`, (ctx) => answerHealth(ctx, deps.health.live(), 'ok', deps.docsUrl));
    router.get(`${prefix}/readyz`, async (ctx) => answerHealth(ctx, await deps.health.ready(), 'ready', deps.docsUrl));
  }
  router.get('/v1/openapi.json', (ctx) => {
    ctx.body = buildOpenApi(deps.apiBaseUrl());
  });
  router.get('/docs/errors', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = errorReferenceHtml();
  });
  return router;
}

/**
 * 200 {status, components} when every component is up; else 503 with the same fields and the
 * error envelope naming what is down, so clients that only read `error` understand it too.
 */
function answerHealth(
  ctx: RouterContext<ApiState>,
  report: HealthReport,
  okStatus: 'ok' | 'ready',
  docsUrl: () => string,
): void {
  if (report.ok) {
    ctx.status = 200;
    ctx.body = presentHealth(okStatus, report.components);
    return;
  }
  const down = Object.entries(report.components)
    .filter(([, state]) => state !== 'up')
    .map(([name, state]) => `${name} is ${state}`);
  const error = new ApiError('service_unavailable', `not every part of the service is up: ${down.join(', ')}`);
  ctx.status = error.status;
  ctx.set('Retry-After', '5');
  ctx.body = presentHealth('unavailable', report.components, errorBody(error, ctx.state.requestId, docsUrl()));
}

function errorReferenceHtml(): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const rows = Object.entries(ERROR_CATALOG)
    .map(
      ([code, e]) =>
        `<tr id="${code}"><td><code>${code}</code></td><td>${e.status}</td><td>${escape(e.when)}</td><td>${escape(e.action)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API error reference</title></head><body>
<h1>API error reference</h1><p>Every error response is <code>{"error": {"code", "message", "request_id", "docs_url"}}</code>.</p>
<table><thead><tr><th>Code</th><th>HTTP</th><th>When</th><th>What to do</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}
