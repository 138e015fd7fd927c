import { Context } from '@temporalio/activity';
import type { BrowserPool } from '../src/browser/pool';
import type { Config } from '../src/config';
import type { Db } from '../src/db/knex';
import { runRenderStep, type DomRender, type RenderStepInput } from '../src/crawl/durable/render-step';
import type { RenderStepResult } from '../src/crawl/durable/render-commit';
import { DEFAULT_USER_AGENT } from '../src/outbound/client';
import { untilDatabaseAnswers } from './database-outage';

/**
 * The browser worker's part of the durable crawl (its own task queue): renders pages of one page step
 * in the worker's warm browsers and commits what they show, so the crawl goes on through the links
 * only JavaScript reveals (docs/architecture.md, "Durable crawl"). A page that cannot render is
 * recorded as such; a lost worker or a database outage only delays the step.
 */
export function createShellRenderActivities(deps: { db: Db; pool: BrowserPool; config: Config }) {
  const renderStep = (input: RenderStepInput, render: (url: string) => Promise<DomRender>) => {
    const context = Context.current();
    const beat = setInterval(() => context.heartbeat(), heartbeatEveryMs(context.info.heartbeatTimeoutMs));
    const env = {
      allow: deps.config.outboundAllow,
      userAgent: DEFAULT_USER_AGENT,
      externalCheckBudget: deps.config.externalCheckBudget,
      concurrencyPerHost: deps.config.crawl.concurrencyPerHost,
      signal: context.cancellationSignal,
      untilDatabaseAnswers,
    };
    return runRenderStep(deps.db, input, env, render).finally(() => clearInterval(beat));
  };
  return {
    /** A page step's application shells. */
    renderShellPages(input: RenderStepInput): Promise<RenderStepResult> {
      return renderStep(input, (url) => deps.pool.renderDom(url));
    },
    /** With `render: "all"`: a chunk of a page step's HTML pages, each with its rendered-DOM checks. */
    renderCrawledPages(input: RenderStepInput): Promise<RenderStepResult> {
      return renderStep(input, (url) => deps.pool.renderDom(url, { checks: true }));
    },
  };
}

export type ShellRenderActivities = ReturnType<typeof createShellRenderActivities>;

/** A third of the heartbeat time-out: two late beats (a busy event loop) are still in time. */
function heartbeatEveryMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(200, Math.min(10_000, (heartbeatTimeoutMs ?? 60_000) / 3));
}
