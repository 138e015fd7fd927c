import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Clock } from '../src/clock';
import type { Config } from '../src/config';
import type { Db } from '../src/db/knex';
import { createProgressRecorder } from '../src/audits/progress';
import { runCheckStep } from '../src/crawl/durable/check-step';
import {
  admitSitemapUrls,
  beginCrawl,
  closeFrontier,
  collectCrawlSitemaps,
  probeCrawlSite,
} from '../src/crawl/durable/crawl-phases';
import { observeStoredPart, type ObservePartInput } from '../src/crawl/durable/observed-parts';
import { runPageStep } from '../src/crawl/durable/page-step';
import { releaseShells, type RenderStepInput } from '../src/crawl/durable/render-step';
import { dropCrawlRun, loadCrawlRun } from '../src/crawl/durable/run-store';
import type { StepEnvironment } from '../src/crawl/durable/step-context';
import { DEFAULT_USER_AGENT } from '../src/outbound/client';
import { untilDatabaseAnswers } from './database-outage';
import { AuditFailure, type CrawlStepInput, type CrawlWorkflowInput } from '../workflows/contracts';

export interface CrawlActivityDeps {
  db: Db;
  clock: Clock;
  config: Config;
  /** Tests of loopback sites turn the DNS and TLS probes off. */
  probes?: { lookupDns: boolean; probeTls: boolean };
}

/**
 * Activities of CrawlWorkflow: each one step of the durable crawl (src/crawl/durable), taken by any
 * audit worker. The site's behaviour (an AuditFailure) fails the step for good, with its code as the
 * failure type; anything else is retried, so a lost worker or a database outage only delays it.
 */
export function createCrawlActivities(deps: CrawlActivityDeps) {
  const env = (onProgress?: StepEnvironment['onProgress']): StepEnvironment => ({
    allow: deps.config.outboundAllow,
    userAgent: DEFAULT_USER_AGENT,
    externalCheckBudget: deps.config.externalCheckBudget,
    concurrencyPerHost: deps.config.crawl.concurrencyPerHost,
    signal: Context.current().cancellationSignal,
    ...(onProgress ? { onProgress } : {}),
    untilDatabaseAnswers,
    ...(deps.probes ?? {}),
  });
  return {
    beginCrawl: (input: Pick<CrawlWorkflowInput, 'crawlId' | 'auditId' | 'origin' | 'pageBudget'>) =>
      siteFailures(() => beginCrawl(deps.db, input, env())),
    collectSitemaps: (input: { crawlId: string }) =>
      siteFailures(() => collectCrawlSitemaps(deps.db, input.crawlId, env())),
    probeSite: (input: { crawlId: string }) => siteFailures(() => probeCrawlSite(deps.db, input.crawlId, env())),
    admitSitemapUrls: (input: { crawlId: string }) =>
      siteFailures(() => admitSitemapUrls(deps.db, input.crawlId, env())),
    closeFrontier: (input: { crawlId: string }) => closeFrontier(deps.db, input.crawlId),
    async crawlPageStep(input: CrawlStepInput) {
      const report = await progressReporter(deps, input);
      return siteFailures(() => runPageStep(deps.db, input, env(report)));
    },
    async checkTargetsStep(input: CrawlStepInput) {
      const report = await progressReporter(deps, input);
      return siteFailures(() => runCheckStep(deps.db, input, env(report)));
    },
    /** One part of the ended crawl's pages observed by the analyzers, for the analysis to take. */
    async observePagesPart(input: ObservePartInput & { auditId: string }) {
      // The audit shows the analysis begun from the first part on (the rest of its phase is estimated from then).
      if (input.part === 0) {
        const run = await untilDatabaseAnswers(() => loadCrawlRun(deps.db, input.crawlId));
        if (run) {
          const { pagesCrawled, pagesDiscovered } = run;
          const record = createProgressRecorder(deps, input.auditId, 0, run.observedAt);
          record({ phase: 'analyzing', pagesCrawled, pagesDiscovered });
        }
      }
      return siteFailures(() => observeStoredPart(deps.db, input, env()));
    },
    /** Shells no browser worker rendered within the bound: the crawl goes on without what they would show. */
    releaseShellPages: (input: RenderStepInput & { reason: string }) => releaseShells(deps.db, input, env()),
    dropCrawl: (input: { crawlId: string }) => untilDatabaseAnswers(() => dropCrawlRun(deps.db, input.crawlId)),
  };
}

export type CrawlActivities = ReturnType<typeof createCrawlActivities>;

/** Heartbeats the step's progress (a lost worker is noticed within the time-out) and projects it to the audit. */
async function progressReporter(
  deps: CrawlActivityDeps,
  input: CrawlStepInput,
): Promise<StepEnvironment['onProgress']> {
  const context = Context.current();
  const run = await untilDatabaseAnswers(() => loadCrawlRun(deps.db, input.crawlId));
  const record = createProgressRecorder(deps, input.auditId, 2_000, run?.observedAt ?? deps.clock.now());
  return (progress) => {
    context.heartbeat(progress);
    record(progress);
  };
}

async function siteFailures<T>(step: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), heartbeatEveryMs(context.info.heartbeatTimeoutMs));
  try {
    return await step();
  } catch (err) {
    if (err instanceof AuditFailure) throw ApplicationFailure.nonRetryable(err.message, err.code);
    throw err;
  } finally {
    clearInterval(beat);
  }
}

/** A third of the heartbeat time-out: two late beats (a busy event loop) are still in time. */
function heartbeatEveryMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(200, Math.min(10_000, (heartbeatTimeoutMs ?? 60_000) / 3));
}
