import { proxyActivities } from '@temporalio/workflow';
import type { ReportRenderingActivities } from '../activities/report-render';
import { REPORT_RENDER_RETRY, type ReportWorkflowInput } from './contracts';

const reports = proxyActivities<ReportRenderingActivities>({
  // ~2 s for a 500-page audit on this hardware; the margin covers slow storage.
  startToCloseTimeout: '5 minutes',
  retry: REPORT_RENDER_RETRY,
});

/**
 * Renders one audit's PDF report. Workflow id `report-{audit_id}-r{branding revision}`: requests
 * for the same audit and branding join one render instead of starting another.
 */
export async function ReportWorkflow(input: ReportWorkflowInput) {
  return reports.renderReport({ auditId: input.auditId });
}
