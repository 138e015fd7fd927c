import Router from '@koa/router';
import { FEATURE_MIN_TIER, tierAtLeast } from '../../accounts/tiers';
import type { Usage } from '../../accounts/usage';
import { ApiError } from '../api-error';
import type { ApiState } from '../context';

/**
 * Endpoints of the spec that are not built yet (webhooks, PDF reports). They already apply tier
 * gating, then answer 501 with the error envelope instead of a bare 404.
 */
export function plannedRoutes(): Router<ApiState> {
  const router = new Router<ApiState>();
  const planned = (feature: keyof typeof FEATURE_MIN_TIER, name: string) => (ctx: { state: ApiState }) => {
    requireTier(ctx.state.usage, feature, name);
    throw new ApiError('not_implemented', `${name} are not available through the API yet`);
  };
  router.post('/webhooks', planned('webhooks', 'webhooks'));
  router.get('/webhooks', planned('webhooks', 'webhooks'));
  router.delete('/webhooks/:webhookId', planned('webhooks', 'webhooks'));
  router.get('/webhooks/:webhookId/deliveries', planned('webhooks', 'webhooks'));
  router.post('/webhooks/:webhookId/deliveries/:deliveryId/retry', planned('webhooks', 'webhooks'));
  router.get('/audits/:auditId/pdf', planned('pdf_reports', 'PDF reports'));
  return router;
}

export function requireTier(usage: Usage | undefined, feature: keyof typeof FEATURE_MIN_TIER, name: string): void {
  const minimum = FEATURE_MIN_TIER[feature];
  if (!usage || !tierAtLeast(usage.tier, minimum)) {
    throw new ApiError('tier_required', `${name} require the ${minimum} tier or higher; this account is on ${usage?.tier ?? 'free'}`);
  }
}
