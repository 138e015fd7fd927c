import type { Db } from '../src/db/knex';
import { loadAudit } from '../src/audits/repository';
import { accountTier } from '../src/accounts/repository';
import { tierAtLeast, FEATURE_MIN_TIER } from '../src/accounts/tiers';
import { brandingRevision } from '../src/reports/branding-repository';

/** AuditWorkflow's question after completion: does the audit get its report rendered now? */
export function createReportPlanningActivities(deps: { db: Db }) {
  return {
    /**
     * Whether a just-completed audit gets its report rendered ahead of the first request: live
     * audits of accounts whose tier includes PDF reports. Returns the branding revision to render.
     */
    async planReport(input: { auditId: string }): Promise<{ brandingRevision: number } | null> {
      const audit = await loadAudit(deps.db, input.auditId);
      if (!audit || audit.status !== 'completed' || audit.mode !== 'live') return null;
      const tier = await accountTier(deps.db, audit.account_id);
      if (!tier || !tierAtLeast(tier, FEATURE_MIN_TIER.pdf_reports)) return null;
      return {
        brandingRevision: await brandingRevision(deps.db, { workspaceId: audit.workspace_id, mode: audit.mode }),
      };
    },
  };
}

export type ReportPlanningActivities = ReturnType<typeof createReportPlanningActivities>;
