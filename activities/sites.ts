import type { TriggerDeps } from '../src/audits/trigger';
import { runScheduledSite } from '../src/sites/runs';
import type { SiteRunResult } from '../workflows/contracts';

/** Activities of SiteRunWorkflow: a site's scheduled run through the trigger path. */
export function createSiteActivities(deps: TriggerDeps) {
  return {
    async runScheduledSite(input: { siteId: string; scheduledAt: string }): Promise<SiteRunResult> {
      const result = await runScheduledSite(deps, { siteId: input.siteId, scheduledAt: new Date(input.scheduledAt) });
      return {
        outcome: result.outcome,
        auditId: result.run?.audit_id ?? null,
        skipReason: result.run?.skip_reason ?? null,
      };
    },
  };
}

export type SiteActivities = ReturnType<typeof createSiteActivities>;
