import { ApiError } from '../errors';
import { TIERS, type Tier } from '../schemas/audit';
import { FEATURE_MIN_TIER, tierAtLeast } from './tiers';

export type GatedFeature = keyof typeof FEATURE_MIN_TIER;

/** What a gate reads of the account: its tier (an API caller's or a session's Usage, or an operator's lookup). */
export type TierHolder = { tier: Tier } | undefined;

/** How `tier_required` messages name each gated feature. */
const FEATURE_NAMES: Record<GatedFeature, string> = {
  webhooks: 'webhooks',
  pdf_reports: 'PDF reports',
  branding: 'Report branding',
  ip_allowlists: 'IP allowlists',
  sites: 'Monitored sites',
  shares: 'Share links',
};

/** Options of an audit (POST /v1/audits) gated by tier: the minimum tier, and how messages name them. */
const AUDIT_OPTIONS = {
  render_all: { minimum: 'team', name: 'Audits that render every page (render: "all")' },
} as const satisfies Record<string, { minimum: Tier; name: string }>;

/** The gate of every surface that offers `feature` (API routes, pages, admin commands): one rule, one message. */
export function requireFeature(account: TierHolder, feature: GatedFeature): void {
  requireTier(account, feature, FEATURE_NAMES[feature]);
}

/** The same gate as a question, for pages that offer a feature's controls only when it is included. */
export function featureIncluded(account: TierHolder, feature: GatedFeature): boolean {
  return !!account && tierAtLeast(account.tier, FEATURE_MIN_TIER[feature]);
}

/** The tiers an account may run an audit at: its own and those below (src/audits/trigger.ts refuses the others). */
export function tiersWithin(account: TierHolder): Tier[] {
  return TIERS.filter((tier) => tierAtLeast(account?.tier ?? 'free', tier));
}

export type GatedAuditOption = keyof typeof AUDIT_OPTIONS;

/** The audit option gate as a question (the plan page lists what each tier includes). */
export function auditOptionIncluded(account: TierHolder, option: GatedAuditOption): boolean {
  return !!account && tierAtLeast(account.tier, AUDIT_OPTIONS[option].minimum);
}

/** An audit option's gate: the same 403 tier_required as a feature's. */
export function requireAuditOption(account: TierHolder, option: GatedAuditOption): void {
  refuseBelow(account, AUDIT_OPTIONS[option].minimum, AUDIT_OPTIONS[option].name);
}

/** 403 tier_required, naming the minimum tier, unless the account's tier includes the feature. */
export function requireTier(account: TierHolder, feature: GatedFeature, name: string): void {
  refuseBelow(account, FEATURE_MIN_TIER[feature], name);
}

function refuseBelow(account: TierHolder, minimum: Tier, name: string): void {
  if (!account || !tierAtLeast(account.tier, minimum)) {
    throw new ApiError(
      'tier_required',
      `${name} require the ${minimum} tier or higher; this account is on ${account?.tier ?? 'free'}`,
    );
  }
}
