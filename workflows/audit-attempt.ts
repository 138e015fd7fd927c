import {
  ApplicationFailure,
  CancellationScope,
  executeChild,
  patched,
  proxyActivities,
  proxyLocalActivities,
  TemporalFailure,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { AuditActivities, AuditRunResult } from '../activities/audit';
import type { BrowserCompletionActivities, BrowserStageActivities } from '../activities/browser';
import type { CrawlActivities } from '../activities/crawl';
import {
  BROWSER_STAGE_RETRY,
  DATABASE_WRITE_RETRY,
  crawlId,
  crawlWorkflowId,
  type AuditWorkflowInput,
  type ProjectionRun,
} from './contracts';
import { CrawlWorkflow } from './crawl';

const completion = proxyLocalActivities<BrowserCompletionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DATABASE_WRITE_RETRY,
});

/**
 * The browser stage in two activities, each holding a browser worker's task slot only while it
 * renders (before, one activity held it from the crawl's start, polling Postgres for the sample).
 */
const BROWSER_STAGE_QUEUED = 'browser-stage-queued';

/** The sample's wait is bounded from the crawl's end, not the attempt's start, for `render: "all"` audits. */
const RENDER_ALL = 'render-all';

type AttemptRun = ProjectionRun & { auditId: string; attempt: number; finalAttempt: boolean };
type BrowserStage = NonNullable<AuditWorkflowInput['browserStage']>;
/** The attempt's crawl and analysis: one activity (before patch durable-crawl), or the durable crawl then the analysis. */
type RunAudit = (run: AttemptRun & { browserStage?: boolean }) => Promise<AuditRunResult>;

/**
 * Live audits crawl in checkpointed steps (CrawlWorkflow, a child per attempt), then one activity
 * analyses the stored crawl; before, one activity crawled and analysed in its own memory.
 */
const DURABLE_CRAWL = 'durable-crawl';
/** Steps a crawl's run starts before it continues as new: its history stays a few thousand events. */
const CRAWL_STEPS_PER_RUN = 400;

const crawlCleanup = proxyActivities<CrawlActivities>({
  startToCloseTimeout: '10 minutes',
  retry: DATABASE_WRITE_RETRY,
});

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
  // A start without crawl settings (an API from before them, mid-deploy) crawls in one activity.
  const settings = input.mode === 'live' ? input.crawl : undefined;
  const runAudit: RunAudit =
    settings && patched(DURABLE_CRAWL)
      ? (r) => crawlThenAnalyze(input, settings, auditRun, r)
      : (r) => auditRun.runAudit(r);
  const stage = input.browserStage;
  if (input.mode !== 'live' || !stage || !patched('browser-stage')) {
    await runAudit(run);
    return;
  }
  await (patched(BROWSER_STAGE_QUEUED) ? withQueuedStage : withPollingStage)(input, stage, runAudit, run);
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
  runAudit: RunAudit,
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
    ({ sample } = await runAudit({ ...run, browserStage: true }));
  } catch (err) {
    scope.cancel();
    throw err;
  }
  await home;
  // With render: "all" the crawl renders every page itself, which may take longer than the bound:
  // the sample's Lighthouse runs get the whole bound from the crawl's end (patch render-all).
  const remainingMs = input.render === 'all' && patched(RENDER_ALL) ? stage.timeoutMs : deadline - Date.now();
  if (!sample || remainingMs <= 0) return;
  await browserSteps(stage, remainingMs)
    .renderSampledPages({ ...stageInput, sample })
    .catch(() => null);
}

/** Executions started before patch browser-stage-queued: one activity renders the whole stage. */
async function withPollingStage(
  input: AuditWorkflowInput,
  stage: BrowserStage,
  runAudit: RunAudit,
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
    await runAudit({ ...run, browserStage: true });
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

/**
 * The attempt's durable crawl (a child workflow), then the analysis of what it stored. The crawl's
 * working state is dropped afterwards, whatever the outcome. A crawl failed by the site's behaviour
 * fails the attempt with the site's failure code.
 */
async function crawlThenAnalyze(
  input: AuditWorkflowInput,
  settings: NonNullable<AuditWorkflowInput['crawl']>,
  auditRun: ActivityInterfaceFor<AuditActivities>,
  run: AttemptRun & { browserStage?: boolean },
): Promise<AuditRunResult> {
  const id = crawlId(run.auditId, run.generation, run.attempt);
  try {
    await executeChild(CrawlWorkflow, {
      workflowId: crawlWorkflowId(run.auditId, run.generation, run.attempt),
      args: [
        {
          crawlId: id,
          auditId: run.auditId,
          origin: input.domain,
          pageBudget: settings.pageBudget,
          stepPages: settings.stepPages,
          heartbeatTimeoutMs: input.heartbeatTimeoutMs,
          stepsPerRun: settings.stepsPerRun ?? CRAWL_STEPS_PER_RUN,
          // Only a browser stage has browser workers to render application shells (patch app-shell-render),
          // and every page with render: "all" (patch render-all, in the crawl).
          ...(run.browserStage && input.browserStage
            ? { render: { ...input.browserStage, ...(input.render === 'all' ? { all: true } : {}) } }
            : {}),
        },
      ],
    }).catch((err: unknown) => {
      throw siteFailureOf(err);
    });
    return await auditRun.runAudit({ ...run, crawlId: id });
  } finally {
    await CancellationScope.nonCancellable(() => crawlCleanup.dropCrawl({ crawlId: id }));
  }
}

/** The failure at the bottom of a child's failure chain (the step's ApplicationFailure and its code). */
function siteFailureOf(err: unknown): unknown {
  let cause: unknown = err;
  while (cause instanceof TemporalFailure && cause.cause) cause = cause.cause;
  return cause instanceof ApplicationFailure ? cause : err;
}
