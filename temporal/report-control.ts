import { WorkflowFailedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { ReportRenderRequests, ReportSubject } from '../src/reports/render-requests';
import { ReportWorkflow } from '../workflows';
import { auditSearchAttributes, reportWorkflowId } from '../workflows/contracts';

/** Report renders as ReportWorkflows: concurrent requests for one audit and branding share one. */
export class TemporalReportRenders implements ReportRenderRequests {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  async renderAndWait(subject: ReportSubject, brandingRevision: number, waitMs: number): Promise<'done' | 'pending'> {
    const handle = await this.client.workflow.start(ReportWorkflow, {
      workflowId: reportWorkflowId(subject.auditId, brandingRevision),
      taskQueue: this.taskQueue,
      args: [{ auditId: subject.auditId }],
      // Join a render under way; after one has ended (failed, or its file was lost) start anew.
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: auditSearchAttributes(subject),
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'pending'>((resolve) => {
      timer = setTimeout(() => resolve('pending'), waitMs);
    });
    try {
      return await Promise.race([
        handle.result().then(
          () => 'done' as const,
          (err: unknown) => {
            // Surfaces as internal_error; the log keeps the cause (the next request starts a new render).
            if (err instanceof WorkflowFailedError)
              throw new Error(`render ${handle.workflowId} failed: ${failureChain(err)}`);
            throw err;
          },
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

function failureChain(err: unknown): string {
  const messages: string[] = [];
  for (
    let e = err as { message?: string; cause?: unknown } | undefined;
    e && messages.length < 4;
    e = e.cause as typeof e
  ) {
    if (e.message) messages.push(e.message);
  }
  return messages.join(': ');
}
