import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Client, Connection } from '@temporalio/client';
import { SchedulerUnavailableError, type AuditScheduler } from '../src/audits/scheduler';
import type { AuditWorkflowInput } from '../src/audits/workflow-input';
import { AUDIT_DOMAIN, AUDIT_MODE, AUDIT_STATUS, WORKSPACE_ID } from './search-attribute-keys';

/**
 * Starts AuditWorkflow with the audit id as workflow id. A start that cannot reach Temporal within
 * the deadline is reported as unavailable so the API can roll back and answer 503.
 */
export class TemporalAuditScheduler implements AuditScheduler {
  constructor(
    private readonly client: Client,
    private readonly connection: Connection,
    private readonly taskQueue: string,
    private readonly startDeadlineMs = 5000,
  ) {}

  async start(input: AuditWorkflowInput): Promise<void> {
    try {
      await this.connection.withDeadline(Date.now() + this.startDeadlineMs, () =>
        this.client.workflow.start('AuditWorkflow', {
          workflowId: input.auditId,
          taskQueue: this.taskQueue,
          args: [input],
          // A live id is started once (a repeated start joins the running workflow). Test audits are
          // re-run under the same id: a run still finishing (e.g. sending its events) is replaced,
          // so the re-triggered audit always gets a run of its own.
          workflowIdConflictPolicy: input.mode === 'test' ? WorkflowIdConflictPolicy.TERMINATE_EXISTING : WorkflowIdConflictPolicy.USE_EXISTING,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          typedSearchAttributes: [
            { key: AUDIT_STATUS, value: 'queued' },
            { key: AUDIT_DOMAIN, value: input.domain },
            { key: WORKSPACE_ID, value: input.workspaceId },
            { key: AUDIT_MODE, value: input.mode },
          ],
        }),
      );
    } catch (err) {
      throw new SchedulerUnavailableError(`could not start workflow ${input.auditId}: ${(err as Error).message}`);
    }
  }
}
