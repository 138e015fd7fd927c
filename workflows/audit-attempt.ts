import {
  CancellationScope,
  patched,
  proxyActivities,
  proxyLocalActivities,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { AuditActivities } from '../activities/audit';
import type { BrowserCompletionActivities, BrowserStageActivities } from '../activities/browser';
import { BROWSER_STAGE_RETRY, DATABASE_WRITE_RETRY, type AuditWorkflowInput, type ProjectionRun } from './contracts';

const completion = proxyLocalActivities<BrowserCompletionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DATABASE_WRITE_RETRY,
});

/**
 * The browser stage in two activities, each holding a browser worker's task slot only while it
 * renders (before, one activity held it from the crawl's start, polling Postgres for the sample).
 */
const BROWSER_STAGE_QUEUED = 'browser-stage-queued';

type AttemptRun = ProjectionRun & { auditId: string; attempt: number; finalAttempt: boolean };
type BrowserStage = NonNullable<AuditWorkflowInput['browserStage']>;

/**
 * One attempt. Live audits (patch browser-stage) run the browser stage on the browser workers' task
 * queue alongside the crawl and analysis; the audit completes once both are done. A failed attempt
 * cancels the stage. The stage's bound (its schedule-to-close time-out, queueing included) is the
 * longest an audit waits for it (a browser worker down, a long backlog): then it completes without
 * it, its performance category scored from diagnostics.
 */
export async function runAttempt(
  input: AuditWorkflowInput,
  auditRun: ActivityInterfaceFor<AuditActivities>,
  run: AttemptRun,
): Promise<void> {
  const stage = input.browserStage;
  if (input.mode !== 'live' || !stage || !patched('browser-stage')) {
    await auditRun.runAudit(run);
    return;
  }
  await (patched(BROWSER_STAGE_QUEUED) ? withQueuedStage : withPollingStage)(input, stage, auditRun, run);
  await completion.completeAuditRun({
    generation: run.generation,
    auditId: run.auditId,
    attempt: run.attempt,
  });
}

/**
 * The home page is rendered while the crawl runs; the crawl's sample, which the run returns, is
 * handed to the second step. Both wait in the browser task queue, first come first served.
 */
async function withQueuedStage(
  input: AuditWorkflowInput,
  stage: BrowserStage,
  auditRun: ActivityInterfaceFor<AuditActivities>,
  run: AttemptRun,
): Promise<void> {
  // Workflow time: the same on every replay.
  const deadline = Date.now() + stage.timeoutMs;
  const stageInput = { auditId: run.auditId, attempt: run.attempt, homeUrl: input.domain };
  const scope = new CancellationScope();
  // A step's failure (time-out included) is no failure of the audit: it completes without the stage.
  const home = scope.run(() => browserSteps(stage, stage.timeoutMs).renderHomePage(stageInput)).catch(() => null);
  let sample: string[] | undefined;
  try {
    ({ sample } = await auditRun.runAudit({ ...run, browserStage: true }));
  } catch (err) {
    scope.cancel();
    throw err;
  }
  await home;
  const remainingMs = deadline - Date.now();
  if (!sample || remainingMs <= 0) return;
  await browserSteps(stage, remainingMs)
    .renderSampledPages({ ...stageInput, sample })
    .catch(() => null);
}

/** Executions started before patch browser-stage-queued: one activity renders the whole stage. */
async function withPollingStage(
  input: AuditWorkflowInput,
  stage: BrowserStage,
  auditRun: ActivityInterfaceFor<AuditActivities>,
  run: AttemptRun,
): Promise<void> {
  const scope = new CancellationScope();
  const rendered = scope
    .run(() =>
      browserSteps(stage, stage.timeoutMs).runBrowserStage({
        auditId: run.auditId,
        attempt: run.attempt,
        homeUrl: input.domain,
      }),
    )
    .catch(() => null);
  try {
    await auditRun.runAudit({ ...run, browserStage: true });
  } catch (err) {
    scope.cancel();
    throw err;
  }
  await rendered;
}

function browserSteps(stage: BrowserStage, scheduleToCloseMs: number) {
  return proxyActivities<BrowserStageActivities>({
    taskQueue: stage.taskQueue,
    scheduleToCloseTimeout: scheduleToCloseMs,
    heartbeatTimeout: '1 minute',
    retry: BROWSER_STAGE_RETRY,
  });
}
