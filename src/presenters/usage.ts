import { BURST_LIMIT, RETRIEVAL_LIMIT } from '../accounts/tiers';
import type { Usage } from '../accounts/usage';
import { iso } from './iso';

/** The account's quota position in its current period, with the rate limits that apply to it. */
export function presentUsage(usage: Usage) {
  return {
    tier: usage.tier,
    period_start: iso(usage.period.start),
    period_end: iso(usage.period.end),
    audits_limit: usage.limit,
    audits_used: usage.used,
    audits_remaining: usage.remaining,
    burst: { limit: BURST_LIMIT.limit, window_seconds: BURST_LIMIT.windowSeconds },
    retrieval: { limit: RETRIEVAL_LIMIT.limit, window_seconds: RETRIEVAL_LIMIT.windowSeconds },
  };
}
