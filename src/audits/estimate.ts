import { TIER_RULES } from '../accounts/tiers';
import type { Mode, Tier } from '../schemas/audit';

// Fixed part of a live audit: robots.txt, DNS and TLS probes, sitemaps, scoring, storing.
const LIVE_SETUP_MS = 3_000;

/**
 * Expected completion: test audits are synthetic and finish in well under a second; live audits
 * take the setup plus the tier's page budget at the measured crawl speed (an upper bound for sites
 * smaller than the budget).
 */
export function estimateCompletion(mode: Mode, tier: Tier, from: Date, msPerPage: number): Date {
  const ms = mode === 'test' ? 2_000 : LIVE_SETUP_MS + TIER_RULES[tier].pageBudget * msPerPage;
  return new Date(from.getTime() + Math.round(ms));
}
