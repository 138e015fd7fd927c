import type { KeyIdentity } from '../accounts/repository';
import { requireFeature } from '../accounts/tier-gate';
import { accountUsage } from '../accounts/usage';
import { triggerAudit, type TriggerDeps } from '../audits/trigger';
import { ApiError } from '../errors';
import { loadSite, recordRun, findRun, type SiteRunRow } from './repository';

export type ScheduledRunOutcome =
  | { outcome: 'started' | 'skipped'; run: SiteRunRow }
  /** The site was deleted or paused after Temporal fired: nothing to do, nothing recorded. */
  | { outcome: 'not_due'; run: null };

/**
 * One firing of a site's schedule (docs/decisions.md, Monitoring): the audit is triggered through
 * THE trigger path of POST /audits (src/audits/trigger.ts) — quota, burst limit, first-free,
 * tier, and the site's `render` under the same tier rule — as if the site's workspace had asked
 * with a key of the site's mode. A refusal is recorded as a skipped run with the error's code and
 * message, never retried: a later firing tries again, and a quota is never overspent by retries. The Idempotency-Key derives from the site and the
 * scheduled time, so a firing whose activity is retried (a worker lost after the commit) gets the
 * same audit back instead of a second charge, and records its run once.
 */
export async function runScheduledSite(
  deps: TriggerDeps,
  input: { siteId: string; scheduledAt: Date },
): Promise<ScheduledRunOutcome> {
  const earlier = await findRun(deps.db, input.siteId, input.scheduledAt);
  if (earlier) return { outcome: earlier.outcome, run: earlier };
  const site = await loadSite(deps.db, input.siteId);
  if (!site || site.paused) return { outcome: 'not_due', run: null };
  if (!deps.scheduler.available()) await deps.scheduler.probe();
  const now = deps.clock.now();
  const usage = await accountUsage(deps.db, site.account_id, now);
  // Scheduled runs act for the site, not for a key: the site id stands where a key id would.
  const identity: KeyIdentity = {
    keyId: site.id,
    workspaceId: site.workspace_id,
    accountId: site.account_id,
    mode: site.mode,
    revoked: false,
    allowedCidrs: null,
  };
  const base = { site_id: site.id, scheduled_at: input.scheduledAt, created_at: now };
  try {
    // A downgrade pauses sites over the limit; one below pro keeps none running.
    requireFeature(usage, 'sites');
    const result = await triggerAudit(
      deps,
      { identity, usage },
      // render is sent only when not the default, so a firing retried across the upgrade that added
      // it keeps its first try's request fingerprint (src/audits/idempotency.ts).
      {
        domain: site.domain,
        ...(site.tier ? { tier: site.tier } : {}),
        ...(site.render === 'all' ? { render: site.render } : {}),
      },
      `site-run:${site.id}:${input.scheduledAt.toISOString()}`,
    );
    const run = await recordRun(deps.db, {
      ...base,
      outcome: 'started',
      audit_id: result.response.audit_id,
      skip_reason: null,
      skip_message: null,
    });
    return { outcome: run.outcome, run };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const run = await recordRun(deps.db, {
      ...base,
      outcome: 'skipped',
      audit_id: null,
      skip_reason: err.code,
      skip_message: err.message,
    });
    return { outcome: run.outcome, run };
  }
}
