import type { Middleware } from 'koa';
import type { KeyAuthenticator } from '../../accounts/authenticator';
import type { KeyIdentity } from '../../accounts/repository';
import type { Clock } from '../../clock';
import type { Db } from '../../db/knex';
import { admitRetrieval } from '../../accounts/retrieval-limit';
import { BURST_LIMIT, RETRIEVAL_LIMIT } from '../../accounts/tiers';
import { burstPosition } from '../../accounts/burst-position';
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
 * may have `failureLimit` failed authentications a minute: each key this instance has not seen valid
 * takes a slot *before* its lookup (given back if the key is valid), so concurrent guesses never get
 * more lookups than that, and past it they get 429 without one. Keys this instance saw valid within
 * the day are no guesses: they are still evaluated from an address over its limit, so one client
 * flooding bad keys does not lock out the valid keys of others behind the same address. A valid key
 * never resets the count, so it cannot buy more guesses either.
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
  const evaluate = async (key: string, address: string): Promise<KeyIdentity | null> => {
    const nowMs = Date.now();
    if (deps.authenticator.vouchesFor(key)) {
      const identity = await deps.authenticator.authenticate(key);
      if (!identity) failures.recordFailure(address, nowMs); // revoked since
      return identity;
    }
    const slot = failures.reserve(address, nowMs);
    if (!slot) {
      const retryAfter = failures.retryAfterSeconds(address, nowMs);
      throw new ApiError(
        'too_many_failed_authentications',
        `more than ${deps.failureLimit} failed authentications from this address within ${FAILURE_WINDOW_MS / 1000} seconds; retry in ${retryAfter} s`,
        { 'Retry-After': String(retryAfter) },
      );
    }
    try {
      const identity = await deps.authenticator.authenticate(key);
      if (identity) failures.release(slot); // a valid key is no failure
      return identity;
    } catch (err) {
      failures.release(slot); // nor is a lookup the database could not answer
      throw err;
    }
  };
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    const identity = match ? await evaluate(match[1], ctx.ip) : null;
    if (!identity) {
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

/**
 * Retrieval limit: live keys, every endpoint but the trigger (which has its own limits). Either way the
 * window that applied is noted for the RateLimit field: the retrieval window from the same round trip
 * that admits the request; after a live trigger, the account's burst window.
 */
export function limitRetrieval(deps: { db: Db; clock: Clock }): Middleware<ApiState> {
  return async (ctx, next) => {
    const identity = ctx.state.identity;
    const isTrigger = ctx.method === 'POST' && ctx.path === '/v1/audits';
    if (identity?.mode === 'live' && isTrigger) return withBurstPosition(ctx, next, deps, identity.accountId);
    if (identity?.mode === 'live' && !isTrigger) {
      const { allowed, retryAfterSeconds, remaining, resetSeconds } = await admitRetrieval(
        deps.db,
        identity.workspaceId,
        deps.clock.now(),
      );
      ctx.state.rateWindow = { policy: 'retrieval', remaining, resetSeconds };
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

/** After a live trigger, answered or refused: where its account's burst window stands. */
async function withBurstPosition(
  ctx: Parameters<Middleware<ApiState>>[0],
  next: () => Promise<unknown>,
  deps: { db: Db; clock: Clock },
  accountId: string,
): Promise<void> {
  try {
    await next();
  } catch (err) {
    // Refused for the burst: nothing left until Retry-After.
    if (err instanceof ApiError && err.code === 'burst_limit_exceeded') {
      const retryAfter = Number(err.headers['Retry-After'] ?? BURST_LIMIT.windowSeconds);
      ctx.state.rateWindow = { policy: 'burst', remaining: 0, resetSeconds: retryAfter };
    }
    throw err;
  }
  ctx.state.rateWindow = { policy: 'burst', ...(await burstPosition(deps.db, accountId, deps.clock.now())) };
}
