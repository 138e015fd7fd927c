import { Context } from '@temporalio/activity';
import type { BrowserPool } from '../src/browser/pool';
import type { Config } from '../src/config';
import type { Db } from '../src/db/knex';
import { runRenderStep, type RenderStepInput } from '../src/crawl/durable/render-step';
import type { RenderStepResult } from '../src/crawl/durable/render-commit';
import { DEFAULT_USER_AGENT } from '../src/outbound/client';
import { untilDatabaseAnswers } from './database-outage';

/**
 * The browser worker's part of the durable crawl (its own task queue): renders one page step's
 * application shells in the worker's warm browsers and commits what they show, so the crawl goes on
 * through the links only JavaScript reveals (docs/architecture.md, "Durable crawl"). A page that
 * cannot render is recorded as such; a lost worker or a database outage only delays the step.
 */
export function createShellRenderActivities(deps: { db: Db; pool: BrowserPool; config: Config }) {
  return {
    async renderShellPages(input: RenderStepInput): Promise<RenderStepResult> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), heartbeatEveryMs(context.info.heartbeatTimeoutMs));
      try {
        const env = {
          allow: deps.config.outboundAllow,
          userAgent: DEFAULT_USER_AGENT,
          externalCheckBudget: deps.config.externalCheckBudget,
          concurrencyPerHost: deps.config.crawl.concurrencyPerHost,
          signal: context.cancellationSignal,
          untilDatabaseAnswers,
        };
        return await runRenderStep(deps.db, input, env, (url) => deps.pool.renderDom(url));
      } finally {
        clearInterval(beat);
      }
    },
  };
}

export type ShellRenderActivities = ReturnType<typeof createShellRenderActivities>;

/** A third of the heartbeat time-out: two late beats (a busy event loop) are still in time. */
function heartbeatEveryMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(200, Math.min(10_000, (heartbeatTimeoutMs ?? 60_000) / 3));
}
