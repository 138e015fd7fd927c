/** Arguments of ReportWorkflow. */
export interface ReportWorkflowInput {
  auditId: string;
}

/** Failure type of a render asked for an audit without a completed result: not retried. */
export const AUDIT_NOT_COMPLETED = 'audit_not_completed';

/**
 * Id of the ReportWorkflow rendering an audit's PDF with one branding revision: requests for the
 * same audit and branding join one render, and operators find it by the audit id.
 */
export function reportWorkflowId(auditId: string, brandingRevision: number): string {
  return `report-${auditId}-r${brandingRevision}`;
}
