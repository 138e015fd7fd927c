import type { Context, Middleware } from 'koa';
import { newRequestId } from '../../ids';
import { TIER_RULES } from '../../accounts/tiers';
import { periodAt, unixSeconds } from '../../accounts/period';
import type { Usage } from '../../accounts/usage';
import type { Clock } from '../../clock';
import { ApiError } from '../../errors';
import type { ApiState } from '../context';
import { rateLimitFields, type WindowPosition } from '../rate-limit-fields';

/**
 * Outermost layer: gives every response a request id and the three rate-limit headers, and turns
 * every thrown error into the spec's error envelope (unknown errors become internal_error).
 */
export function envelope(opts: {
  docsUrl: () => string;
  clock: Clock;
  log: (msg: string, err?: unknown) => void;
}): Middleware<ApiState> {
  return async (ctx, next) => {
    const requestId = newRequestId();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ApiError('not_found', `no route for ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const apiError = err instanceof ApiError ? err : fromUnknown(err);
      if (apiError.status >= 500) opts.log(`${ctx.method} ${ctx.path} failed (${requestId})`, err);
      ctx.status = apiError.status;
      for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
      ctx.body = errorBody(apiError, requestId, opts.docsUrl());
    } finally {
      ctx.set(
        rateLimitHeaders(ctx.state.usage, opts.clock, {
          testMode: ctx.state.identity?.mode === 'test',
          window: ctx.state.rateWindow,
        }),
      );
      if (mayNotBeStored(ctx)) ctx.set('Cache-Control', 'no-store');
    }
  };
}

/** The error envelope: `{error: {code, message, request_id, docs_url}}`. */
export function errorBody(error: ApiError, requestId: string, docsUrl: string) {
  return {
    error: { code: error.code, message: error.message, request_id: requestId, docs_url: `${docsUrl}#${error.code}` },
  };
}

/**
 * X-RateLimit-*, and the IETF RateLimit-Policy and RateLimit fields beside them (../rate-limit-fields.ts);
 * unauthenticated responses carry the free tier's values (README, Tiers and limits).
 */
export function rateLimitHeaders(
  usage: Usage | undefined,
  clock: Clock,
  request: { testMode: boolean; window?: WindowPosition } = { testMode: false },
): Record<string, string> {
  const limit = usage?.limit ?? (TIER_RULES.free.monthlyQuota as number);
  const remaining = usage?.remaining ?? limit;
  const now = clock.now();
  const period = usage?.period ?? periodAt(now);
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(unixSeconds(period.end)),
    ...rateLimitFields({ limit, remaining, period, now, ...request }),
  };
}

/**
 * /v1 JSON answers are per key and may carry a secret (a webhook's, once) or a credential (a
 * signed report link): no cache may keep them. Errors are never worth keeping either.
 */
function mayNotBeStored(ctx: Context): boolean {
  return ctx.status >= 400 || (/^\/v1(\/|$)/.test(ctx.path) && ctx.response.is('json') !== false);
}

function fromUnknown(err: unknown): ApiError {
  // Koa and its helpers throw HttpErrors with `status` and `expose`; keep their client errors.
  const status = (err as { status?: number })?.status;
  if (status === 413) return new ApiError('payload_too_large', 'request body is larger than 64 KiB');
  if (typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: boolean }).expose) {
    return new ApiError('invalid_request', (err as Error).message, {}, status);
  }
  return new ApiError('internal_error', 'an unexpected error occurred; retry with exponential backoff');
}
