import { Context, log } from '@temporalio/activity';
import type { Clock } from '../src/clock';
import type { Db } from '../src/db/knex';
import type { BrowserPool } from '../src/browser/pool';
import { renderSample, runBrowserStage } from '../src/browser/stage';
import type { BrowserStageResult } from '../src/browser/stage-result';
import {
  clearPendingAudit,
  loadHomePage,
  loadPendingAudit,
  loadSample,
  loadStageResult,
  saveHomePage,
  saveStageResult,
} from '../src/browser/store';
import { loadAudit } from '../src/audits/repository';
import { completeAudit } from '../src/audits/completion';
import { assertValidAuditJson } from '../src/audits/validate-audit';
import type { AuditJson } from '../src/schemas/audit';
import { mergeBrowserStage } from '../src/analyzers/browser-stage';
import { judgedOnEveryPage } from '../src/analyzers/browser-rendered';
import { attachMonitoring } from '../src/monitoring/previous';
import { browserPageDuration } from '../src/observability/metrics';
import type { ProjectionRun } from '../workflows/contracts';
import { untilDatabaseAnswers } from './database-outage';

export interface BrowserStageInput {
  auditId: string;
  attempt: number;
  /** The audited origin: its home page is rendered before the crawl has ended. */
  homeUrl: string;
}

const SAMPLE_POLL_MS = 250;

/** The browser worker's activity (its own task queue): renders the attempt's sampled pages. */
export function createBrowserStageActivities(deps: { db: Db; pool: BrowserPool }) {
  return {
    async runBrowserStage(input: BrowserStageInput): Promise<{ pages: number; measured: number }> {
      const context = Context.current();
      const key = { auditId: input.auditId, attempt: input.attempt };
      let progress: unknown = { phase: 'rendering', pages: 0 };
      // On a clock: one Lighthouse run takes seconds, and the wait for the crawl may take minutes.
      const beat = setInterval(() => context.heartbeat(progress), heartbeatEveryMs(context.info.heartbeatTimeoutMs));
      try {
        const result = await runBrowserStage(homePageOf(input.homeUrl), {
          render: (url) => timedRender(deps.pool, url),
          sample: () => waitForSample(deps.db, key, context),
          onPage: (pages) => {
            progress = { phase: 'rendering', pages };
            context.heartbeat(progress);
          },
          signal: context.cancellationSignal,
        });
        await untilDatabaseAnswers(() => saveStageResult(deps.db, key, result));
        return { pages: result.pages.length, measured: result.pages.filter((p) => p.status === 'measured').length };
      } finally {
        clearInterval(beat);
      }
    },
  };
}

/**
 * The browser worker's activities of the stage in two steps (patch browser-stage-queued): each takes
 * a task slot only while it renders, so the backlog waits in the task queue, first come first served,
 * for any browser worker; and the workflow hands the sample over instead of the worker polling for it.
 */
export function createQueuedBrowserActivities(deps: { db: Db; pool: BrowserPool }) {
  return {
    /** The home page, rendered while the crawl runs, kept for renderSampledPages. */
    async renderHomePage(input: BrowserStageInput): Promise<void> {
      const key = { auditId: input.auditId, attempt: input.attempt };
      const home = await whileBeating({ phase: 'rendering', pages: 0 }, () =>
        timedRender(deps.pool, homePageOf(input.homeUrl)),
      );
      await untilDatabaseAnswers(() => saveHomePage(deps.db, key, home));
    },
    /**
     * The crawl's sample after its home page, and the stage's result stored for completeAuditRun. The
     * home page is rendered here when its own step left no result (it timed out, or its worker was lost).
     */
    async renderSampledPages(
      input: BrowserStageInput & { sample: string[] },
    ): Promise<{ pages: number; measured: number }> {
      const context = Context.current();
      const key = { auditId: input.auditId, attempt: input.attempt };
      const result = await whileBeating({ phase: 'rendering' }, async (report) => {
        const home =
          (await untilDatabaseAnswers(() => loadHomePage(deps.db, key))) ??
          (await timedRender(deps.pool, homePageOf(input.homeUrl)));
        return renderSample(
          home,
          input.sample,
          {
            render: (url) => timedRender(deps.pool, url),
            onPage: (pages) => report({ phase: 'rendering', pages }),
            signal: context.cancellationSignal,
          },
          // The stage's time is its rendering time: the home page's, then this step's.
          Date.now() - (home.status === 'measured' ? home.durationMs : 0),
        );
      });
      await untilDatabaseAnswers(() => saveStageResult(deps.db, key, result));
      return { pages: result.pages.length, measured: result.pages.filter((p) => p.status === 'measured').length };
    },
  };
}

export type BrowserStageActivities = ReturnType<typeof createBrowserStageActivities> &
  ReturnType<typeof createQueuedBrowserActivities>;

/** The crawl's home page: the origin's root (src/crawl/context.ts). */
function homePageOf(homeUrl: string): string {
  return `${new URL(homeUrl).origin}/`;
}

/** Runs a render step heartbeating on a clock: one Lighthouse run takes seconds. */
async function whileBeating<T>(first: unknown, step: (report: (progress: unknown) => void) => Promise<T>): Promise<T> {
  const context = Context.current();
  let progress = first;
  const beat = setInterval(() => context.heartbeat(progress), heartbeatEveryMs(context.info.heartbeatTimeoutMs));
  try {
    return await step((p) => {
      progress = p;
      context.heartbeat(p);
    });
  } finally {
    clearInterval(beat);
  }
}

/**
 * The audit worker's last step of a live attempt with the browser stage: the analysed audit JSON
 * (stored by runAudit) completed with the stage's result, when there is one, and the audit marked
 * completed. Without a result (the stage timed out or its worker was down) the performance category
 * is scored from diagnostics.
 */
export function createBrowserCompletionActivities(deps: {
  db: Db;
  clock: Clock;
  /** Puts the stage's measurements into the audit JSON (findings, scoring); mergeBrowserStage unless a test says otherwise. */
  merge?: (audit: AuditJson, result: BrowserStageResult | null) => AuditJson;
}) {
  return {
    async completeAuditRun(
      input: ProjectionRun & { auditId: string; attempt: number },
    ): Promise<{ score: number; grade: string }> {
      const key = { auditId: input.auditId, attempt: input.attempt };
      const [pending, result] = await Promise.all([loadPendingAudit(deps.db, key), loadStageResult(deps.db, key)]);
      if (pending === null) {
        // Completed by an earlier try of this step: its result stands.
        const row = await loadAudit(deps.db, input.auditId);
        if (row?.status === 'completed') return { score: row.score ?? 0, grade: row.grade ?? '' };
        throw new Error(`audit ${input.auditId} attempt ${input.attempt} has no analysed result`);
      }
      // What the analysis judged on every rendered page (render: "all") stands beside the sample.
      const merge = deps.merge ?? ((audit, stage) => mergeBrowserStage(audit, stage, judgedOnEveryPage(audit)));
      const merged = withStage(JSON.parse(pending) as AuditJson, result, merge, input.auditId);
      // The stage changed findings and scores: the comparison with the previous audit is made again.
      const audit = await compared(deps.db, input.auditId, merged);
      // Completed now, after the stage: the JSON's completed_at says so, as the row's does.
      const { written } = await completeAudit(deps.db, {
        auditId: input.auditId,
        generation: input.generation,
        audit,
        completedAt: deps.clock.now(),
      });
      if (written === 'missing') throw new Error(`audit ${input.auditId} is gone`);
      await clearPendingAudit(deps.db, key);
      return { score: audit.score, grade: audit.grade };
    },
  };
}

export type BrowserCompletionActivities = ReturnType<typeof createBrowserCompletionActivities>;

/** The merged audit with triage and comparison made from its final findings and scores (docs/decisions.md, Monitoring). */
async function compared(db: Db, auditId: string, audit: AuditJson): Promise<AuditJson> {
  const row = await loadAudit(db, auditId);
  if (!row) return audit;
  const site = { auditId, workspaceId: row.workspace_id, mode: row.mode, domain: row.domain };
  const out = await untilDatabaseAnswers(() => attachMonitoring(db, site, audit));
  assertValidAuditJson(out);
  return out;
}

/** A merge that fails (a bug) must not hold the audit: it completes without the stage, and the log says why. */
function withStage(
  audit: AuditJson,
  result: BrowserStageResult | null,
  merge: (audit: AuditJson, result: BrowserStageResult | null) => AuditJson,
  auditId: string,
): AuditJson {
  try {
    const merged = merge(audit, result);
    assertValidAuditJson(merged);
    return merged;
  } catch (err) {
    log.error('the browser stage could not be merged; the audit completes without it', {
      auditId,
      error: String((err as Error)?.stack ?? err),
    });
    return audit;
  }
}

async function timedRender(pool: BrowserPool, url: string) {
  const end = browserPageDuration.startTimer();
  const page = await pool.render(url);
  end({ status: page.status });
  return page;
}

/** Polls for the crawl's sample (written as soon as the crawl ends); cancelled with the activity. */
async function waitForSample(db: Db, key: { auditId: string; attempt: number }, context: Context): Promise<string[]> {
  for (;;) {
    const sample = await loadSample(db, key).catch(() => null);
    if (sample) return sample;
    await context.sleep(SAMPLE_POLL_MS);
  }
}

function heartbeatEveryMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(200, Math.min(10_000, (heartbeatTimeoutMs ?? 60_000) / 3));
}
