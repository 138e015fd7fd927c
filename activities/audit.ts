import { ApplicationFailure, CancelledFailure, Context, log } from '@temporalio/activity';
import type { Clock } from '../src/clock';
import type { Db } from '../src/db/knex';
import {
  AuditFailure,
  INTERNAL_ERROR_MESSAGE,
  type AuditFailureCode,
  type ProjectionRun,
} from '../workflows/contracts';
import {
  loadAudit,
  markFailed,
  markRunning,
  markWaitingForRetry,
  type AuditRow,
  type ProjectionWrite,
} from '../src/audits/repository';
import { createProgressRecorder, progressOf, type ProgressColumns } from '../src/audits/progress';
import { produceAuditJson, type AuditEngine } from '../src/audits/produce';
import { recordCrawlSpeed } from '../src/audits/crawl-speed';
import { LIVE_FINISH_MS } from '../src/audits/estimate';
import { assertValidAuditJson } from '../src/audits/validate-audit';
import type { AuditJson } from '../src/schemas/audit';
import { completeAudit } from '../src/audits/completion';
import { attachMonitoring } from '../src/monitoring/previous';
import { untilDatabaseAnswers } from './database-outage';
import { storableJson } from '../src/text/storable';
import { auditAttemptDuration, auditsFinished } from '../src/observability/metrics';
import { samplePages } from '../src/browser/sampling';
import { saveSample, savePendingAudit } from '../src/browser/store';
import { replaceCrawlFacts } from '../src/audits/crawl-facts-store';
import { syntheticCrawlFacts } from '../src/audits/synthetic/crawl-facts';
import { storedCrawl } from '../src/audits/stored-crawl';

export interface AuditActivityDeps {
  db: Db;
  clock: Clock;
  engine: AuditEngine;
}

// A workflow may start a moment before the API's transaction that inserted its row commits.
// Past this many attempts a missing row means the trigger was rolled back: nothing to project.
const MISSING_ROW_ATTEMPTS = 30;
// An unexpected error (a bug, not the site) gets this many activity attempts, then it is the
// attempt's internal_error for the workflow's retry loop.
const UNEXPECTED_ERROR_ATTEMPTS = 3;

/** Activities of AuditWorkflow: thin wrappers that call the plain modules in src/. */
export function createAuditActivities(deps: AuditActivityDeps) {
  return {
    markAuditRunning: (input: RunningInput) => markRunningOnceCommitted(deps, input),

    async markAuditWaitingForRetry(
      input: ProjectionRun & {
        auditId: string;
        attempt: number;
        delayMs: number;
        error: { code: AuditFailureCode; message: string };
      },
    ): Promise<void> {
      const at = deps.clock.now();
      const nextAttemptAt = new Date(at.getTime() + input.delayMs);
      ensureWritten(
        await markWaitingForRetry(deps.db, input.auditId, {
          generation: input.generation,
          attempt: input.attempt,
          nextAttemptAt,
          error: input.error,
          at,
        }),
        input.auditId,
      );
    },

    async markAuditFailed(
      input: ProjectionRun & {
        auditId: string;
        attempts: number;
        error: { code: AuditFailureCode; message: string };
      },
    ): Promise<void> {
      const written = await markFailed(deps.db, input.auditId, {
        generation: input.generation,
        attempts: input.attempts,
        error: input.error,
        failedAt: deps.clock.now(),
      });
      if (!ensureWritten(written, input.auditId)) return;
      auditsFinished.inc({ outcome: 'failed', mode: (await loadAudit(deps.db, input.auditId))?.mode ?? 'unknown' });
    },

    runAudit: (input: RunAuditInput) => timedAttempt(() => runAudit(deps, input)),
  };
}

export type AuditActivities = ReturnType<typeof createAuditActivities>;

type RunningInput = ProjectionRun & { auditId: string; attempt: number };

interface RunAuditInput extends ProjectionRun {
  auditId: string;
  attempt: number;
  finalAttempt: boolean;
  /**
   * With the browser stage (workflow patch browser-stage): the crawl's sample is stored for the
   * browser worker as soon as the crawl ends, and the analysed audit JSON waits for the stage's
   * result (completeAuditRun completes the audit) instead of completing it here.
   */
  browserStage?: boolean;
  /** Marks the audit running first (a test audit's synthetic run: one local activity instead of two). */
  markRunning?: boolean;
  /** The attempt's durable crawl (CrawlWorkflow), done: its stored facts are analysed instead of crawling here. */
  crawlId?: string;
}

async function markRunningOnceCommitted(deps: AuditActivityDeps, input: RunningInput) {
  // The trigger's transaction usually commits within milliseconds of the workflow start:
  // wait briefly here rather than failing (and logging) an activity attempt.
  let written: ProjectionWrite = 'missing';
  for (let tries = 0; tries < 40 && written === 'missing'; tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    written = await markRunning(deps.db, input.auditId, {
      generation: input.generation,
      attempt: input.attempt,
      at: deps.clock.now(),
    });
  }
  ensureWritten(written, input.auditId);
}

/**
 * Runs the audit (synthetic in test mode, a real crawl in live mode), validates and stores it.
 * Only the site's own behaviour (an AuditFailure) fails the attempt for the workflow's retry
 * loop. A database outage is waited out, keeping the crawled result; a lost worker is retried
 * by Temporal; an unexpected error gets a few quick retries, then ends as internal_error.
 */
/**
 * What an attempt's run tells its workflow; with the browser stage, the pages the crawl sampled for
 * rendering (home page first), which the workflow hands to the stage's second step.
 */
export interface AuditRunResult {
  score: number;
  grade: string;
  sample?: string[];
}

async function runAudit(deps: AuditActivityDeps, input: RunAuditInput): Promise<AuditRunResult> {
  const context = Context.current();
  // Heartbeat on a clock, not only per page: one slow page must not look like a lost worker.
  let progress: unknown = { phase: 'starting' };
  // A local activity (a test audit's synthetic run) has no heartbeat to send.
  const heartbeat = context.info.isLocal ? () => undefined : (p: unknown) => context.heartbeat(p);
  const beat = setInterval(() => heartbeat(progress), heartbeatEveryMs(context.info.heartbeatTimeoutMs));
  try {
    if (input.markRunning) await markRunningOnceCommitted(deps, input);
    const row = await untilDatabaseAnswers(() => loadAudit(deps.db, input.auditId));
    if (!row) throw ApplicationFailure.nonRetryable(INTERNAL_ERROR_MESSAGE, 'internal_error');
    // Progress is passed on at once (the SDK throttles what it sends) and repeated by the clock above.
    // When the analysis began: at the crawl's first observed part (its clock goes on), or when this run reports it.
    let analysisStartedAt = analysisStartOf(row);
    const recordProgress = continuedProgressRecorder(deps, row, analysisStartedAt);
    const report = (p?: unknown) => {
      progress = p;
      heartbeat(p);
      const reported = progressOf(p);
      if (reported) recordProgress(reported);
      if (reported?.phase === 'analyzing') analysisStartedAt ??= deps.clock.now();
    };
    const key = { auditId: input.auditId, attempt: input.attempt };
    let sample: string[] | undefined;
    const run = {
      heartbeat: report,
      signal: context.cancellationSignal,
      finalAttempt: input.finalAttempt,
      // Stored too for executions started before patch browser-stage-queued, whose stage polls for it.
      onCrawled: input.browserStage
        ? (pages: Parameters<typeof samplePages>[0]) => {
            sample = samplePages(pages, row.tier);
            return untilDatabaseAnswers(() => saveSample(deps.db, key, sample!));
          }
        : undefined,
    };
    const crawlId = input.crawlId;
    const crawlEndedAt = analysisStartedAt ?? undefined;
    const crawled = crawlId ? () => storedCrawl(deps.db, crawlId, untilDatabaseAnswers, crawlEndedAt) : undefined;
    const produced = await produceAuditJson(deps.engine, row, deps.clock, run, crawled).catch((err) => {
      // Classified failures are decided by the workflow's audit-level retry loop, not here.
      if (err instanceof AuditFailure) throw ApplicationFailure.nonRetryable(err.message, err.code);
      throw unexpected(err, input.auditId);
    });
    progress = { phase: 'storing' };
    // Comparison with the previous audit and the site's triage go into the stored bytes (served and POSTed).
    const site = { auditId: row.id, workspaceId: row.workspace_id, mode: row.mode, domain: row.domain };
    const audit = await untilDatabaseAnswers(() => attachMonitoring(deps.db, site, produced.audit)).catch((err) => {
      throw unexpected(err, input.auditId);
    });
    assertValidAuditJson(audit);
    // The pages and every finding URL, for the listings and CSV exports; replaced as a whole, so a retry rewrites them.
    const facts = produced.facts ?? syntheticCrawlFacts(audit);
    await untilDatabaseAnswers(() => replaceCrawlFacts(deps.db, input.auditId, facts)).catch((err) => {
      throw unexpected(err, input.auditId);
    });
    await untilDatabaseAnswers(() => storeOutcome(deps, input, audit, analysisStartedAt)).catch((err) => {
      throw unexpected(err, input.auditId);
    });
    return { score: audit.score, grade: audit.grade, ...(sample ? { sample } : {}) };
  } finally {
    clearInterval(beat);
  }
}

/**
 * Records the live audit's measured speeds and completes it; with the browser stage, keeps it
 * pending for completeAuditRun to complete once the stage's result is in.
 */
async function storeOutcome(
  deps: AuditActivityDeps,
  input: RunAuditInput,
  audit: AuditJson,
  analysisStartedAt: Date | null,
): Promise<void> {
  if (audit.mode === 'live') {
    const at = deps.clock.now();
    await recordCrawlSpeed(deps.db, {
      pages: audit.crawl.pages_crawled,
      durationMs: audit.crawl.duration_ms,
      analysisMs: analysisStartedAt ? at.getTime() - analysisStartedAt.getTime() : undefined,
      analysisFixedMs: LIVE_FINISH_MS,
      at,
    });
  }
  if (input.browserStage) {
    await savePendingAudit(deps.db, { auditId: input.auditId, attempt: input.attempt }, storableJson(audit));
    return;
  }
  // Stamped now, once its pages and finding URLs are stored (at 100,000 pages, seconds after the JSON was made).
  const { written } = await completeAudit(deps.db, {
    auditId: input.auditId,
    generation: input.generation,
    audit,
    completedAt: deps.clock.now(),
  });
  ensureWritten(written, input.auditId);
}

/** Times the attempt into the metrics: completed, the site's failure, or an error of ours. */
async function timedAttempt<T>(attempt: () => Promise<T>): Promise<T> {
  const end = auditAttemptDuration.startTimer();
  try {
    const result = await attempt();
    end({ outcome: 'completed' });
    return result;
  } catch (err) {
    const ours = ['internal_error', 'audit_abandoned'];
    const siteFailure = err instanceof ApplicationFailure && err.nonRetryable && !ours.includes(err.type ?? '');
    end({ outcome: siteFailure ? 'site_failure' : 'error' });
    throw err;
  }
}

/**
 * Heartbeats well inside the time-out: a third of it, so two late beats (a busy event loop) are
 * still in time. The SDK sends at most one per throttle interval (see temporal/worker.ts).
 */
function heartbeatEveryMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(200, Math.min(10_000, (heartbeatTimeoutMs ?? 60_000) / 3));
}

/**
 * An error that is neither the site's behaviour nor a database outage: retried like a transient
 * fault a few times, then reported to the workflow as internal_error, its details kept in the log.
 */
function unexpected(err: unknown, auditId: string): unknown {
  if (err instanceof ApplicationFailure || err instanceof CancelledFailure) return err;
  const { attempt } = Context.current().info;
  if (attempt < UNEXPECTED_ERROR_ATTEMPTS) return err;
  log.error('audit attempt failed with an unexpected error', { auditId, error: String((err as Error)?.stack ?? err) });
  return ApplicationFailure.nonRetryable(INTERNAL_ERROR_MESSAGE, 'internal_error');
}

/** A write of a run the audit was triggered again since is dropped: the new run's state stands. */
function ensureWritten(written: ProjectionWrite, auditId: string): boolean {
  if (written === 'superseded') {
    log.info('projection write skipped: the audit was triggered again since this run started', { auditId });
    return false;
  }
  if (written === 'written') return true;
  const { attempt } = Context.current().info;
  if (attempt >= MISSING_ROW_ATTEMPTS) {
    throw ApplicationFailure.nonRetryable(`audit ${auditId} was never committed`, 'audit_abandoned');
  }
  throw ApplicationFailure.retryable(`audit ${auditId} is not visible yet`, 'audit_row_missing');
}

/**
 * runAudit's progress recorder: the attempt's clock as its crawl steps set it, and the analysis's
 * from the first observed part, go on (a new clock would show the analysis begun again).
 */
function continuedProgressRecorder(
  deps: AuditActivityDeps,
  row: AuditRow & Partial<ProgressColumns>,
  analysisStartedAt: Date | null,
) {
  return createProgressRecorder(
    deps,
    row.id,
    undefined,
    row.attempt_started_at ? new Date(row.attempt_started_at) : undefined,
    analysisStartedAt ? { phase: 'analyzing', startedAt: analysisStartedAt } : undefined,
  );
}

/** When the analysis of the audit's current attempt began, if its parts already started it (null otherwise). */
function analysisStartOf(row: AuditRow & Partial<ProgressColumns>): Date | null {
  return row.progress_phase === 'analyzing' && row.phase_started_at ? new Date(row.phase_started_at) : null;
}
