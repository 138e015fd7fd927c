import type { Middleware } from 'koa';
import type { KeyAuthenticator } from '../../accounts/authenticator';
import type { Clock } from '../../clock';
import type { Db } from '../../db/knex';
import { admitRetrieval } from '../../accounts/retrieval-limit';
import { RETRIEVAL_LIMIT } from '../../accounts/tiers';
import type { ReadModel } from '../read-model';
import { ApiError } from '../../errors';
import { ipAllowed } from '../../accounts/ip-allowlist';
import type { ApiState } from '../context';
import { AuthFailureLimiter } from '../../accounts/auth-failure-limit';

// RFC 9110: the auth scheme is case-insensitive ("bearer" is "Bearer"); one or more spaces follow it.
const BEARER = /^Bearer +(\S+)$/i;
const FAILURE_WINDOW_MS = 60_000;

/**
 * RFC 6750 bearer auth; every failure is the same 401 so keys cannot be probed. A client address
 * that presents more than `failureLimit` bad keys a minute gets 429 until its window frees a slot;
 * meanwhile only keys this instance already knows as valid get through (from memory, no lookup).
 */
export function authenticate(deps: {
  authenticator: KeyAuthenticator;
  readModel: ReadModel;
  clock: Clock;
  failureLimit: number;
}): Middleware<ApiState> {
  const failures = new AuthFailureLimiter({
    limit: deps.failureLimit,
    windowMs: FAILURE_WINDOW_MS,
    maxAddresses: 10_000,
  });
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    const nowMs = Date.now();
    const retryAfter = match ? failures.retryAfterSeconds(ctx.ip, nowMs) : 0;
    const identity = match ? await deps.authenticator.authenticate(match[1], { cachedOnly: retryAfter > 0 }) : null;
    if (!identity && retryAfter > 0) {
      throw new ApiError(
        'too_many_failed_authentications',
        `more than ${deps.failureLimit} failed authentications from this address within ${FAILURE_WINDOW_MS / 1000} seconds; retry in ${retryAfter} s`,
        { 'Retry-After': String(retryAfter) },
      );
    }
    if (!identity) {
      if (match) failures.recordFailure(ctx.ip, nowMs);
      throw new ApiError(
        'invalid_api_key',
        match
          ? 'the API key is malformed, unknown or revoked'
          : 'missing Authorization header: send "Authorization: Bearer <API_KEY>"',
        { 'WWW-Authenticate': 'Bearer realm="api"' },
      );
    }
    if (identity.allowedCidrs?.length && !ipAllowed(ctx.ip, identity.allowedCidrs)) {
      throw new ApiError('ip_not_allowed', `requests from ${ctx.ip} are not allowed for this API key`);
    }
    ctx.state.identity = identity;
    ctx.state.usage = await deps.readModel.usage(identity.accountId, deps.clock.now());
    await next();
  };
}

/** Retrieval limit: live keys, every endpoint but the trigger (which has its own limits). */
export function limitRetrieval(deps: { db: Db; clock: Clock }): Middleware<ApiState> {
  return async (ctx, next) => {
    const identity = ctx.state.identity;
    const isTrigger = ctx.method === 'POST' && ctx.path === '/v1/audits';
    if (identity?.mode === 'live' && !isTrigger) {
      const { allowed, retryAfterSeconds } = await admitRetrieval(deps.db, identity.workspaceId, deps.clock.now());
      if (!allowed) {
        throw new ApiError(
          'retrieval_limit_exceeded',
          `more than ${RETRIEVAL_LIMIT.limit} requests within ${RETRIEVAL_LIMIT.windowSeconds} seconds for this workspace; retry in ${retryAfterSeconds} s`,
          { 'Retry-After': String(retryAfterSeconds) },
        );
      }
    }
    await next();
  };
}
