import type Koa from 'koa';
import { requireFeature, type GatedFeature } from '../accounts/tier-gate';
import { accountUsage } from '../accounts/usage';
import { ApiError } from '../errors';
import type { DashboardDeps } from './deps';
import { renderStatus } from './render';
import { signedIn, type DashboardContext, type DashboardState } from './state';

/**
 * The API's tier gate (requireFeature) in front of a page's actions: a free account's POST, even a
 * forged one, is refused with 403 and the same message the API gives.
 */
export function featureGate(deps: DashboardDeps, feature: GatedFeature, title: string): Koa.Middleware<DashboardState> {
  return async (ctx, next) => {
    const c = ctx as DashboardContext;
    const usage = await accountUsage(deps.db, signedIn(c).workspace.accountId, deps.clock.now());
    try {
      requireFeature(usage, feature);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return renderStatus(c, 403, title, err.message);
    }
    await next();
  };
}
