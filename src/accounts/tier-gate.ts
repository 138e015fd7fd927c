import { ApiError } from '../errors';
import { FEATURE_MIN_TIER, tierAtLeast } from './tiers';
import type { Usage } from './usage';

export type GatedFeature = keyof typeof FEATURE_MIN_TIER;

/** How `tier_required` messages name each gated feature. */
const FEATURE_NAMES: Record<GatedFeature, string> = {
  webhooks: 'webhooks',
  pdf_reports: 'PDF reports',
  branding: 'Report branding',
  ip_allowlists: 'IP allowlists',
  sites: 'Monitored sites',
};

/** The gate of every surface that offers `feature` (API routes, pages): one rule, one message. */
export function requireFeature(usage: Usage | undefined, feature: GatedFeature): void {
  requireTier(usage, feature, FEATURE_NAMES[feature]);
}

/** 403 tier_required, naming the minimum tier, unless the account's tier includes the feature. */
export function requireTier(usage: Usage | undefined, feature: keyof typeof FEATURE_MIN_TIER, name: string): void {
  const minimum = FEATURE_MIN_TIER[feature];
  if (!usage || !tierAtLeast(usage.tier, minimum)) {
    throw new ApiError(
      'tier_required',
      `${name} require the ${minimum} tier or higher; this account is on ${usage?.tier ?? 'free'}`,
    );
  }
}
