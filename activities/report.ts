import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../src/db/knex';
import { loadAudit } from '../src/audits/repository';
import { accountTier } from '../src/accounts/repository';
import { tierAtLeast, FEATURE_MIN_TIER } from '../src/accounts/tiers';
import { brandingRevision } from '../src/reports/branding-repository';
import { renderAndStoreReport, type ReportRenderDeps } from '../src/reports/stored-reports';
import { collectAfterRender } from '../src/reports/pdf/memory';
import { AUDIT_NOT_COMPLETED } from '../workflows/contracts';
import { reportRenderDuration, reportRenders } from '../src/observability/metrics';

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

/** The render itself, run by the report worker process (task queue REPORT_TASK_QUEUE). */
export function createReportRenderingActivities(deps: ReportRenderDeps) {
  return {
    /** Renders and stores the audit's PDF unless the stored one is current. */
    async renderReport(input: { auditId: string }) {
      const result = await renderAndStoreReport(deps, input.auditId)
        .catch((err: unknown) => {
          reportRenders.inc({ outcome: 'failed' });
          throw err;
        })
        .finally(collectAfterRender);
      reportRenders.inc({ outcome: result.outcome });
      if (result.outcome === 'rendered') reportRenderDuration.observe(result.renderMs / 1000);
      if (result.outcome === 'not_completed') {
        throw ApplicationFailure.nonRetryable(
          `audit ${input.auditId} has no completed result to render`,
          AUDIT_NOT_COMPLETED,
        );
      }
      return result;
    },
  };
}

export type ReportRenderingActivities = ReturnType<typeof createReportRenderingActivities>;
