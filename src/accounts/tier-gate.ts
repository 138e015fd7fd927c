import { ApiError } from '../errors';
import { FEATURE_MIN_TIER, tierAtLeast } from './tiers';
import type { Usage } from './usage';

/** 403 tier_required, naming the minimum tier, unless the account's tier includes the feature. */
export function requireTier(usage: Usage | undefined, feature: keyof typeof FEATURE_MIN_TIER, name: string): void {
  const minimum = FEATURE_MIN_TIER[feature];
  if (!usage || !tierAtLeast(usage.tier, minimum)) {
    throw new ApiError('tier_required', `${name} require the ${minimum} tier or higher; this account is on ${usage?.tier ?? 'free'}`);
  }
}
