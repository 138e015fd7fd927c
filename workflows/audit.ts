import {
  ActivityFailure,
  ApplicationFailure,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { AuditActivities } from '../activities/audit';
import type { DeliveryActivities } from '../activities/delivery';
import type { ReportPlanningActivities } from '../activities/report';
import {
  AUDIT_RUN_RETRY,
  AUDIT_STATUS,
  DATABASE_REFUSED_DATUM,
  DATABASE_WRITE_RETRY,
  DELIVERY_ATTEMPT_RETRY,
  INTERNAL_ERROR_MESSAGE,
  NOT_RETRIED,
  auditSearchAttributes,
  deliveryWorkflowId,
  isAuditFailureCode,
  reportWorkflowId,
  type AuditFailureCode,
  type AuditStatus,
  type AttemptRecord,
  type AuditWorkflowInput,
  type EventDetails,
  type FirstAttempt,
  type PlannedDelivery,
  type ProjectionRun,
} from './contracts';
import { runAttempt } from './audit-attempt';
import { DeliveryWorkflow } from './delivery';
import { notifyChannels } from './notify';
import { ReportWorkflow } from './report';

// Projection writes are short database updates: local activities (no task-queue round trip through
// the server), retried without limit so they land even through a database outage.
const projection = proxyLocalActivities<AuditActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DATABASE_WRITE_RETRY,
});

const deliveries = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DATABASE_WRITE_RETRY,
});

// Waits out a database outage inside the activity, heartbeating, rather than failing.
const deliveryLogThroughOutage = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: DELIVERY_ATTEMPT_RETRY,
});

/** Deliveries whose first attempt this workflow makes (before, each delivery's own workflow made it). */
const FIRST_ATTEMPTS_HERE = 'delivery-first-attempts-here';
/** POSTs per local activity: its result, the attempts not acknowledged, stays small in the history. */
const FIRST_ATTEMPTS_PER_STEP = 50;

const reportPlanning = proxyLocalActivities<ReportPlanningActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DATABASE_WRITE_RETRY,
});

// A test audit's synthetic run is short CPU work with no crawl to heartbeat: as a local activity it
// runs inside the workflow task, with no activity task dispatched and completed through the server.
const syntheticRun = proxyLocalActivities<AuditActivities>({
  startToCloseTimeout: '1 minute',
  retry: AUDIT_RUN_RETRY,
});
/** Test audits whose run is a local activity (before, an activity like a live crawl) and that plan no PDF. */
const TEST_RUN_LOCAL = 'test-audit-run-local';
/** Audits that tell the workspace's notification channels of audit.failed and site.regressed, after the webhooks. */
const NOTIFIES_CHANNELS = 'audit-notifies-channels';

/**
 * One audit, id = audit id. Projects every state change to Postgres and to the AuditStatus search
 * attribute; retries failed attempts after AUDIT_RETRY_DELAYS_MS (robots_disallowed is final).
 */
export async function AuditWorkflow(input: AuditWorkflowInput): Promise<{ status: AuditStatus; attempts: number }> {
  const maxAttempts = 1 + input.retryDelaysMs.length;
  // The audit run itself: classified failures (the site's behaviour, and internal_error once a bug
  // has had its few quick retries in the activity) go to the audit-level retry loop below. A worker
  // lost mid-crawl (noticed by the missing heartbeat) is retried without limit: infrastructure never
  // costs an audit attempt. The schedule-to-close bound ends an attempt that cannot finish at all.
  const auditRun = proxyActivities<AuditActivities>({
    startToCloseTimeout: '20 minutes',
    scheduleToCloseTimeout: '2 hours',
    heartbeatTimeout: input.heartbeatTimeoutMs,
    retry: AUDIT_RUN_RETRY,
  });
  // Decided once, in the first workflow task: every attempt of this execution runs the same way.
  const syntheticLocal = input.mode === 'test' && patched(TEST_RUN_LOCAL);
  // Names this run in its projection writes: once the audit is triggered again they are dropped.
  // Activity inputs are not part of the command order: no patch needed.
  const byRun: ProjectionRun = { generation: input.generation };
  for (let attempt = 1; ; attempt++) {
    // A synthetic run marks the audit running itself, and its 'running' never outlasts the workflow
    // task, so no search attribute is set for it.
    if (!syntheticLocal) {
      await projection.markAuditRunning({ ...byRun, auditId: input.auditId, attempt });
      setStatus('running');
    }
    try {
      const run = { ...byRun, auditId: input.auditId, attempt, finalAttempt: attempt >= maxAttempts };
      await (syntheticLocal ? syntheticRun.runAudit({ ...run, markRunning: true }) : runAttempt(input, auditRun, run));
      setStatus('completed');
      await emit(input, attempt, { event: 'audit.completed' });
      // Only live audits have a PDF report to render ahead.
      if (!syntheticLocal) await renderReportAhead(input);
      return { status: 'completed', attempts: attempt };
    } catch (err) {
      const error = failureOf(err);
      if (NOT_RETRIED.includes(error.code) || attempt >= maxAttempts) {
        await projection.markAuditFailed({ ...byRun, auditId: input.auditId, attempts: attempt, error });
        setStatus('failed');
        await emit(input, attempt, { event: 'audit.failed' });
        return { status: 'failed', attempts: attempt };
      }
      const delayMs = input.retryDelaysMs[attempt - 1];
      await projection.markAuditWaitingForRetry({ ...byRun, auditId: input.auditId, attempt, delayMs, error });
      setStatus('queued');
      const nextAttemptAt = new Date(Date.now() + delayMs).toISOString();
      await emit(input, attempt, {
        event: 'audit.retried',
        attempt,
        maxRetries: input.retryDelaysMs.length,
        nextAttemptAt,
        error,
      });
      await sleep(delayMs);
    }
  }
}

/**
 * Sends an event to the workspace's webhooks. Attempt 1 of every delivery is made here, in this
 * workflow task (patch delivery-first-attempts-here); each one not acknowledged goes on in a
 * DeliveryWorkflow of its own (workflow id = delivery id), abandoned by this workflow so that its
 * retries outlive the audit and never affect it. An acknowledged delivery is logged here, done; one
 * that was not is logged by its own workflow's first step, so a run terminated in between leaves no
 * pending row without a workflow behind it. Then the workspace's notification channels that list the
 * event are told, each by a NotificationWorkflow of its own (workflows/notify.ts).
 */
async function emit(input: AuditWorkflowInput, attempt: number, details: EventDetails): Promise<void> {
  try {
    await emitToWebhooks(input, attempt, details);
  } catch (err) {
    // The delivery log kept refusing a datum (its activity is no longer retried): the audit goes on
    // without this event's remaining deliveries rather than stalling. Catching adds no command.
    if (!(err instanceof ActivityFailure && failureType(err) === DATABASE_REFUSED_DATUM)) throw err;
    log.error('an event could not be logged for delivery', { auditId: input.auditId, event: details.event });
  }
  // audit.completed is planned as site.regressed when the audit regressed; audit.retried notifies nobody.
  if (details.event === 'audit.retried' || details.event === 'site.regressed' || !patched(NOTIFIES_CHANNELS)) return;
  const emissionKey = `${workflowInfo().runId}:${attempt}:${details.event}`;
  await notifyChannels(
    { event: details.event, auditId: input.auditId, workspaceId: input.workspaceId, mode: input.mode, emissionKey },
    input.delivery,
  );
}

async function emitToWebhooks(input: AuditWorkflowInput, attempt: number, details: EventDetails): Promise<void> {
  const emissionKey = `${workflowInfo().runId}:${attempt}:${details.event}`;
  const planned = await deliveries.planDeliveries({ auditId: input.auditId, emissionKey, details });
  if (planned.length === 0) return;
  // Before, every planned delivery got a workflow that made its first attempt itself.
  const continued: Array<{ delivery: PlannedDelivery; attempt?: AttemptRecord }> = patched(FIRST_ATTEMPTS_HERE)
    ? await sendFirstAttempts(input, details, planned)
    : planned.map((delivery) => ({ delivery }));
  await Promise.all(
    continued.map(({ delivery, attempt: firstAttempt }) =>
      startChild(DeliveryWorkflow, {
        workflowId: deliveryWorkflowId(delivery.deliveryId),
        args: [
          {
            deliveryId: delivery.deliveryId,
            eventAt: delivery.createdAt,
            ...input.delivery,
            // site.regressed rides along with audit.completed's planning: same commands, its own details.
            record: {
              auditId: input.auditId,
              webhookId: delivery.webhookId,
              url: delivery.url,
              details: delivery.details ?? details,
            },
            ...(firstAttempt ? { firstAttempt } : {}),
          },
        ],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: auditSearchAttributes(input),
      }),
    ),
  );
}

/**
 * Attempt 1 of each planned delivery, a batch of POSTs per local activity (no workflow, no task
 * through the server, for a delivery acknowledged at once). Returns the ones not acknowledged.
 */
async function sendFirstAttempts(
  input: AuditWorkflowInput,
  details: EventDetails,
  planned: PlannedDelivery[],
): Promise<FirstAttempt[]> {
  const send = proxyLocalActivities<DeliveryActivities>({
    // The POSTs run at once, each bounded by the delivery time-out; the rest is a few queries.
    startToCloseTimeout: input.delivery.timeoutMs + 30_000,
    retry: DATABASE_WRITE_RETRY,
  });
  const retrying: FirstAttempt[] = [];
  for (let from = 0; from < planned.length; from += FIRST_ATTEMPTS_PER_STEP) {
    const sent = await send.sendFirstAttempts({
      auditId: input.auditId,
      details,
      deliveries: planned.slice(from, from + FIRST_ATTEMPTS_PER_STEP),
      nextDelayMs: input.delivery.retryDelaysMs[0] ?? null,
    });
    // Acknowledged, but the log refused them: stored through the outage, never sent again.
    if (sent.unrecorded.length)
      await deliveryLogThroughOutage.recordFirstAttempts({
        auditId: input.auditId,
        details,
        attempts: sent.unrecorded,
      });
    retrying.push(...sent.retrying);
  }
  return retrying;
}

/**
 * Live audits of tiers with PDF reports get theirs rendered right away (by its own workflow, so
 * a slow render never holds up the audit), and the first request for it finds it ready.
 */
async function renderReportAhead(input: AuditWorkflowInput): Promise<void> {
  const plan = await reportPlanning.planReport({ auditId: input.auditId });
  if (!plan) return;
  try {
    await startChild(ReportWorkflow, {
      workflowId: reportWorkflowId(input.auditId, plan.brandingRevision),
      taskQueue: input.reportTaskQueue,
      args: [{ auditId: input.auditId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: auditSearchAttributes(input),
    });
  } catch (err) {
    // A request for the report got there first: that render serves.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

function setStatus(status: AuditStatus): void {
  upsertSearchAttributes([{ key: AUDIT_STATUS, value: status }]);
}

function failureType(err: ActivityFailure): string | undefined {
  return err.cause instanceof ApplicationFailure ? (err.cause.type ?? undefined) : undefined;
}

/** The audit-level failure carried by an activity failure: its type is the failure code. */
function failureOf(err: unknown): { code: AuditFailureCode; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && isAuditFailureCode(cause.type)) {
    return { code: cause.type, message: cause.message };
  }
  return { code: 'internal_error', message: INTERNAL_ERROR_MESSAGE };
}
