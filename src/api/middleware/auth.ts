import type { Middleware } from 'koa';
import type { KeyAuthenticator } from '../../accounts/authenticator';
import { accountUsage } from '../../accounts/usage';
import type { Clock } from '../../clock';
import type { Db } from '../../db/knex';
import { ApiError } from '../api-error';
import type { ApiState } from '../context';

const BEARER = /^Bearer ([^\s]+)$/;

/** RFC 6750 bearer auth; every failure is the same 401 so keys cannot be probed. */
export function authenticate(deps: { authenticator: KeyAuthenticator; db: Db; clock: Clock }): Middleware<ApiState> {
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    const identity = match ? await deps.authenticator.authenticate(match[1]) : null;
    if (!identity) {
      throw new ApiError(
        'invalid_api_key',
        match ? 'the API key is malformed, unknown or revoked' : 'missing Authorization header: send "Authorization: Bearer <API_KEY>"',
        { 'WWW-Authenticate': 'Bearer realm="api"' },
      );
    }
    ctx.state.identity = identity;
    ctx.state.usage = await accountUsage(deps.db, identity.accountId, deps.clock.now());
    await next();
  };
}
