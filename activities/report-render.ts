import { ApplicationFailure } from '@temporalio/activity';
import { renderAndStoreReport, type ReportRenderDeps } from '../src/reports/render-and-store';
import { collectAfterRender } from '../src/reports/pdf/memory';
import { AUDIT_NOT_COMPLETED } from '../workflows/contracts';
import { reportRenderDuration, reportRenders } from '../src/observability/metrics';

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
