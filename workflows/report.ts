import { proxyActivities } from '@temporalio/workflow';
import type { ReportRenderingActivities } from '../activities/report';

const reports = proxyActivities<ReportRenderingActivities>({
  // ~2 s for a 500-page audit on this hardware; the margin covers slow storage.
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5, nonRetryableErrorTypes: ['audit_not_completed'] },
});

export interface ReportWorkflowInput {
  auditId: string;
}

/**
 * Renders one audit's PDF report. Workflow id `report-{audit_id}-r{branding revision}`: requests
 * for the same audit and branding join one render instead of starting another.
 */
export async function ReportWorkflow(input: ReportWorkflowInput) {
  return reports.renderReport({ auditId: input.auditId });
}
