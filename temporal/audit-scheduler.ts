import { NamespaceNotFoundError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { isGrpcServiceError, type Client, type Connection } from '@temporalio/client';
import { SchedulerRejectedError, SchedulerUnavailableError, type AuditScheduler } from '../src/audits/scheduler';
import { AuditWorkflow } from '../workflows';
import { auditSearchAttributes, auditWorkflowId, type AuditWorkflowInput } from '../workflows/contracts';

// gRPC answers that no retry changes, the request itself (or the namespace) being wrong:
// INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION.
const PERMANENT = new Set([3, 5, 9]);
const PROBE_DEADLINE_MS = 1000;

/**
 * Starts AuditWorkflow with the audit id as workflow id, behind a small circuit breaker: Temporal
 * counts as down until a probe gets an answer (at start-up, and after any start that failed for
 * lack of it or timed out). While down, starts fail at once and `available()` is false, so
 * nothing queues up behind a hung server; the reconciler probes.
 */
export class TemporalAuditScheduler implements AuditScheduler {
  private up = false;

  constructor(
    private readonly client: Client,
    private readonly connection: Connection,
    private readonly taskQueue: string,
    private readonly startDeadlineMs = 5000,
  ) {}

  available(): boolean {
    return this.up;
  }

  async probe(): Promise<boolean> {
    try {
      await this.connection.withDeadline(Date.now() + PROBE_DEADLINE_MS, () =>
        this.connection.workflowService.getSystemInfo({}),
      );
      this.up = true;
    } catch {
      this.up = false;
    }
    return this.up;
  }

  async start(input: AuditWorkflowInput): Promise<void> {
    if (!this.up)
      throw new SchedulerUnavailableError(`not starting workflow ${input.auditId}: Temporal is unavailable`);
    try {
      await this.connection.withDeadline(Date.now() + this.startDeadlineMs, () =>
        this.client.workflow.start(AuditWorkflow, {
          workflowId: auditWorkflowId(input.auditId),
          taskQueue: this.taskQueue,
          args: [input],
          // A live id is started once (a repeated start joins the running workflow). Test audits are
          // re-run under the same id: a run still finishing (e.g. sending its events) is replaced,
          // so the re-triggered audit always gets a run of its own.
          workflowIdConflictPolicy:
            input.mode === 'test' ? WorkflowIdConflictPolicy.TERMINATE_EXISTING : WorkflowIdConflictPolicy.USE_EXISTING,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          typedSearchAttributes: auditSearchAttributes(input, 'queued'),
        }),
      );
    } catch (err) {
      const message = `could not start workflow ${input.auditId}: ${(err as Error).message}`;
      if (isPermanent(err)) throw new SchedulerRejectedError(message);
      this.up = false;
      throw new SchedulerUnavailableError(message);
    }
  }
}

/** A refusal no retry changes, whether the client translated it, wrapped it (ServiceError) or not. */
function isPermanent(err: unknown): boolean {
  if (err instanceof NamespaceNotFoundError) return true;
  const cause = (err as { cause?: unknown }).cause;
  const status = isGrpcServiceError(err) ? err : isGrpcServiceError(cause) ? cause : null;
  return status !== null && PERMANENT.has(status.code);
}
