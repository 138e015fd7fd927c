import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { httpRequestDuration, httpRequests } from '../../observability/metrics';
import type { ApiState } from '../context';

/**
 * Outermost layer: one log line and the request metrics per request, once its final status is
 * known. Requests are labelled by the router's path template, never the raw URL (which would carry
 * ids and make a metric series per audit).
 */
export function observeRequests(log: Logger): Middleware<ApiState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { method: ctx.method, route: routeLabel(ctx), status: String(ctx.status) };
      httpRequests.inc(labels);
      httpRequestDuration.observe(labels, seconds);
      const identity = ctx.state.identity;
      log[ctx.status >= 500 ? 'error' : 'info'](
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          route: labels.route,
          status: ctx.status,
          durationMs: Math.round(seconds * 1e4) / 10,
          workspaceId: identity?.workspaceId,
          keyId: identity?.keyId,
        },
        'request',
      );
    }
  };
}

/** The matched route's template (e.g. /v1/audits/:id), or `unmatched`. */
export function routeLabel(ctx: Pick<Context, 'status'> & { _matchedRoute?: string | RegExp }): string {
  const route = ctx._matchedRoute;
  if (route instanceof RegExp) return String(route);
  return route ? route : 'unmatched';
}
