import { TIER_RULES } from '../accounts/tiers';
import type { Mode, Tier } from '../schemas/audit';

/** Expected duration of an audit; test audits are synthetic and finish in well under a second. */
export function estimateCompletion(mode: Mode, tier: Tier, from: Date): Date {
  const ms = mode === 'test' ? 2_000 : 5_000 + TIER_RULES[tier].pageBudget * 150;
  return new Date(from.getTime() + ms);
}
