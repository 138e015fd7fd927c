import type { Middleware } from 'koa';
import { FEATURE_NAMES, requireTier } from '../../accounts/tier-gate';
import type { FEATURE_MIN_TIER } from '../../accounts/tiers';
import type { ApiState } from '../context';

/**
 * 403 tier_required before the handler runs unless the caller's tier includes `feature`. Attach it
 * per route (`router.get(path, tierGate('webhooks'), handler)`): a router.use() middleware of a
 * router nested under /v1 would also run for the routes of routers mounted after it.
 */
export function tierGate(feature: keyof typeof FEATURE_MIN_TIER): Middleware<ApiState> {
  return async (ctx, next) => {
    requireTier(ctx.state.usage, feature, FEATURE_NAMES[feature]);
    await next();
  };
}
