import Router from '@koa/router';
import type { FEATURE_MIN_TIER } from '../../accounts/tiers';
import { requireTier } from '../../accounts/tier-gate';
import { ApiError } from '../api-error';
import type { ApiState } from '../context';

/**
 * Endpoints of the spec that are not built yet (PDF reports). They already apply tier gating,
 * then answer 501 with the error envelope instead of a bare 404.
 */
export function plannedRoutes(): Router<ApiState> {
  const router = new Router<ApiState>();
  const planned = (feature: keyof typeof FEATURE_MIN_TIER, name: string) => (ctx: { state: ApiState }) => {
    requireTier(ctx.state.usage, feature, name);
    throw new ApiError('not_implemented', `${name} are not available through the API yet`);
  };
  router.get('/audits/:auditId/pdf', planned('pdf_reports', 'PDF reports'));
  return router;
}
