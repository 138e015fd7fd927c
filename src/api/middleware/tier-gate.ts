import type { Middleware } from 'koa';
import { requireFeature, type GatedFeature } from '../../accounts/tier-gate';
import type { ApiState } from '../context';

/**
 * 403 tier_required before the handler runs unless the caller's tier includes `feature`. Attach it
 * per route (`router.get(path, tierGate('webhooks'), handler)`): a router.use() middleware of a
 * router nested under /v1 would also run for the routes of routers mounted after it.
 */
export function tierGate(feature: GatedFeature): Middleware<ApiState> {
  return async (ctx, next) => {
    requireFeature(ctx.state.usage, feature);
    await next();
  };
}
