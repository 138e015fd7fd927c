import Router from '@koa/router';
import { BURST_LIMIT, RETRIEVAL_LIMIT } from '../../accounts/tiers';
import type { ApiState } from '../context';

export function usageRoutes(): Router<ApiState> {
  const router = new Router<ApiState>();
  // The auth layer already read the account's usage for the rate-limit headers.
  router.get('/usage', (ctx) => {
    const usage = ctx.state.usage;
    if (!usage) throw new Error('usage route needs an authenticated request');
    ctx.body = {
      tier: usage.tier,
      period_start: usage.period.start.toISOString(),
      period_end: usage.period.end.toISOString(),
      audits_limit: usage.limit,
      audits_used: usage.used,
      audits_remaining: usage.remaining,
      burst: { limit: BURST_LIMIT.limit, window_seconds: BURST_LIMIT.windowSeconds },
      retrieval: { limit: RETRIEVAL_LIMIT.limit, window_seconds: RETRIEVAL_LIMIT.windowSeconds },
    };
  });
  return router;
}
