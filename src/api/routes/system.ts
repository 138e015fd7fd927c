import Router from '@koa/router';
import { ERROR_CATALOG } from '../error-catalog';
import { buildOpenApi } from '../openapi';
import type { ApiState } from '../context';

export interface HealthProbe {
  /** Cheap: is the process able to serve and run audits (API, worker, Temporal)? */
  live(): { ok: boolean; checks: Record<string, boolean> };
  /** Thorough: also checks the database and Temporal right now. */
  ready(): Promise<{ ok: boolean; checks: Record<string, boolean> }>;
}

/** Unauthenticated routes: health, the OpenAPI document and the error reference. */
export function systemRoutes(deps: { health: HealthProbe; apiBaseUrl: () => string }): Router<ApiState> {
  const router = new Router<ApiState>();
  for (const prefix of ['', '/v1']) {
    router.get(`${prefix}/healthz`, (ctx) => {
      const result = deps.health.live();
      ctx.status = result.ok ? 200 : 503;
      ctx.body = { status: result.ok ? 'ok' : 'unavailable', checks: result.checks };
    });
    router.get(`${prefix}/readyz`, async (ctx) => {
      const result = await deps.health.ready();
      ctx.status = result.ok ? 200 : 503;
      ctx.body = { status: result.ok ? 'ready' : 'not_ready', checks: result.checks };
    });
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

function errorReferenceHtml(): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const rows = Object.entries(ERROR_CATALOG)
    .map(([code, e]) => `<tr id="${code}"><td><code>${code}</code></td><td>${e.status}</td><td>${escape(e.when)}</td><td>${escape(e.action)}</td></tr>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API error reference</title></head><body>
<h1>API error reference</h1><p>Every error response is <code>{"error": {"code", "message", "request_id", "docs_url"}}</code>.</p>
<table><thead><tr><th>Code</th><th>HTTP</th><th>When</th><th>What to do</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}
