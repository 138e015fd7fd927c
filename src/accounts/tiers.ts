import { DEFAULT_PAGE_BUDGETS } from '../page-budgets';
import type { Tier } from '../schemas/audit';

/** Everything a tier decides, in one table (PAGE_BUDGETS overrides the page budgets: src/page-budgets.ts). */
export const TIER_RULES: Record<Tier, { monthlyQuota: number | null; pageBudget: number; rank: number }> = {
  free: { monthlyQuota: 5, pageBudget: DEFAULT_PAGE_BUDGETS.free, rank: 0 },
  pro: { monthlyQuota: 50, pageBudget: DEFAULT_PAGE_BUDGETS.pro, rank: 1 },
  team: { monthlyQuota: 200, pageBudget: DEFAULT_PAGE_BUDGETS.team, rank: 2 },
  // Enterprise quotas are negotiated per account (accounts.custom_quota); 1,000 is the usual figure.
  enterprise: { monthlyQuota: null, pageBudget: DEFAULT_PAGE_BUDGETS.enterprise, rank: 3 },
};

export const DEFAULT_ENTERPRISE_QUOTA = 1000;

export const BURST_LIMIT = { limit: 10, windowSeconds: 60 } as const;
export const RETRIEVAL_LIMIT = { limit: 100, windowSeconds: 60 } as const;

export function monthlyQuota(tier: Tier, customQuota: number | null): number {
  return TIER_RULES[tier].monthlyQuota ?? customQuota ?? DEFAULT_ENTERPRISE_QUOTA;
}

export function tierAtLeast(tier: Tier, minimum: Tier): boolean {
  return TIER_RULES[tier].rank >= TIER_RULES[minimum].rank;
}

/** Features gated by tier, with the minimum tier named in `tier_required` messages. */
export const FEATURE_MIN_TIER = {
  webhooks: 'pro',
  pdf_reports: 'pro',
  branding: 'pro',
  ip_allowlists: 'team',
  sites: 'pro',
  shares: 'pro',
} as const satisfies Record<string, Tier>;
