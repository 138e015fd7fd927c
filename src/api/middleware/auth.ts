import type { Middleware } from 'koa';
import type { KeyAuthenticator } from '../../accounts/authenticator';
import type { Clock } from '../../clock';
import type { ReadModel } from '../read-model';
import { ApiError } from '../api-error';
import type { ApiState } from '../context';

const BEARER = /^Bearer ([^\s]+)$/;

/** RFC 6750 bearer auth; every failure is the same 401 so keys cannot be probed. */
export function authenticate(deps: { authenticator: KeyAuthenticator; readModel: ReadModel; clock: Clock }): Middleware<ApiState> {
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
    ctx.state.usage = await deps.readModel.usage(identity.accountId, deps.clock.now());
    await next();
  };
}
