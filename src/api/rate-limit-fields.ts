import { periodAt, type Period } from '../accounts/period';
import { BURST_LIMIT, RETRIEVAL_LIMIT } from '../accounts/tiers';

/**
 * The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11, Structured
 * Field Lists of String items with parameters), beside the spec's X-RateLimit-* on every response
 * (docs/decisions.md, "Rate-limit fields"). Policies:
 * - "quota": the monthly audit quota, q = the tier's limit, w = the current month in seconds;
 * - "burst": 10 live triggers per sliding 60 s and account; "retrieval": 100 other requests per
 *   sliding 60 s and workspace. Test keys have neither (SPEC, test mode rule 4), so neither is listed.
 * RateLimit gives the quota's r (audits left) and t (seconds to the month's end), and the window that
 * applies to the request, when known: burst for a live trigger, retrieval for any other live request.
 */
export type WindowPolicy = 'burst' | 'retrieval';

/** Where the window that applied to a request stands after it. */
export interface WindowPosition {
  policy: WindowPolicy;
  remaining: number;
  resetSeconds: number;
}

const WINDOWS: Record<WindowPolicy, { limit: number; windowSeconds: number }> = {
  burst: BURST_LIMIT,
  retrieval: RETRIEVAL_LIMIT,
};

export function rateLimitFields(input: {
  limit: number;
  remaining: number;
  period?: Period;
  now: Date;
  /** Test keys: no burst or retrieval limit. */
  testMode: boolean;
  window?: WindowPosition;
}): Record<string, string> {
  const period = input.period ?? periodAt(input.now);
  const month = Math.round((period.end.getTime() - period.start.getTime()) / 1000);
  const policies = [item('quota', { q: input.limit, w: month })];
  if (!input.testMode) {
    for (const [name, rule] of Object.entries(WINDOWS))
      policies.push(item(name, { q: rule.limit, w: rule.windowSeconds }));
  }
  const toReset = Math.max(0, Math.ceil((period.end.getTime() - input.now.getTime()) / 1000));
  const limits = [item('quota', { r: Math.max(0, input.remaining), t: toReset })];
  if (input.window && !input.testMode)
    limits.push(item(input.window.policy, { r: input.window.remaining, t: input.window.resetSeconds }));
  return { 'RateLimit-Policy': policies.join(', '), RateLimit: limits.join(', ') };
}

/** One List member: a String item (RFC 9651 sf-string; our names need no escaping) with Integer parameters. */
function item(name: string, parameters: Record<string, number>): string {
  const params = Object.entries(parameters).map(([key, value]) => `;${key}=${Math.max(0, Math.floor(value))}`);
  return `"${name}"${params.join('')}`;
}
