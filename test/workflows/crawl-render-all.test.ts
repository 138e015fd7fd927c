import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { CrawlActivities } from '../../activities/crawl';
import type { ShellRenderActivities } from '../../activities/render';
import { CrawlWorkflow } from '../../workflows';
import type { CrawlWorkflowInput } from '../../workflows/contracts';
import { workflowBundle } from '../support/stack';
import { workflowTestEnvironment } from './support/environment';

type RenderInput = Parameters<ShellRenderActivities['renderCrawledPages']>[0];

/** The home page, then one step of `pages` HTML pages, then nothing more to crawl. */
function crawlStubs(pages: number, calls: { steps: unknown[]; released: RenderInput[] }): CrawlActivities {
  const urls = Array.from({ length: pages }, (_, i) => `https://site.example/p/${i}`);
  const result = (claimed: number, shells?: string[]) => ({
    claimed,
    pagesCrawled: 1 + pages,
    pagesDiscovered: 1 + pages,
    pageRequests: 1 + pages,
    rateLimitedPages: 0,
    ...(shells ? { shells } : {}),
  });
  return {
    beginCrawl: async () => ({ window: 2 }),
    collectSitemaps: async () => undefined,
    probeSite: async () => undefined,
    admitSitemapUrls: async () => undefined,
    closeFrontier: async () => undefined,
    crawlPageStep: async (input: { step: number }) => {
      calls.steps.push(input);
      if (input.step === 1) return result(1, ['https://site.example/']);
      return input.step === 2 ? result(pages, urls) : result(0);
    },
    checkTargetsStep: async () => result(0),
    // The pages' observing (patch observe-parts): the analysis observes them itself.
    observePagesPart: async () => ({ claimed: 0 }),
    releaseShellPages: async (input: RenderInput) => {
      calls.released.push(input);
      return { rendered: 0, unrenderable: input.urls.length, pagesDiscovered: 1 + pages };
    },
    dropCrawl: async () => undefined,
  } as unknown as CrawlActivities;
}

/**
 * CrawlWorkflow with `render.all` (patch render-all) on a dev server with stubbed activities: a page
 * step's pages go to the browser queue in chunks of 25, four at a time, each released on its own
 * when no browser renders it; without `all` (the control) a step's shells go as one activity.
 */
describe('CrawlWorkflow rendering every page', function () {
  this.timeout(120_000);

  async function crawl(all: boolean, pages: number, failChunk?: number) {
    const env = await workflowTestEnvironment();
    const taskQueue = `crawl-test-${randomUUID()}`;
    const browserQueue = `${taskQueue}-browser`;
    const calls = { steps: [] as unknown[], released: [] as RenderInput[], rendered: [] as RenderInput[] };
    const shells: RenderInput[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const render = async (input: RenderInput) => {
      calls.rendered.push(input);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 150));
      inFlight--;
      if (input.step === 2 && input.chunk === failChunk) throw ApplicationFailure.nonRetryable('no browser');
      return { rendered: input.urls.length, unrenderable: 0, pagesDiscovered: 1 + pages };
    };
    const crawlWorker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: crawlStubs(pages, calls),
    });
    const browserWorker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: browserQueue,
      activities: {
        renderCrawledPages: render,
        renderShellPages: async (input: RenderInput) => (shells.push(input), { rendered: 1, unrenderable: 0 }),
      },
    });
    const input: CrawlWorkflowInput = {
      crawlId: `crawl-${randomUUID()}`,
      auditId: 'aud_test',
      origin: 'https://site.example',
      pageBudget: 1000,
      stepPages: 500,
      heartbeatTimeoutMs: 60_000,
      stepsPerRun: 400,
      render: { taskQueue: browserQueue, timeoutMs: 60_000, ...(all ? { all: true } : {}) },
    };
    const summary = await crawlWorker.runUntil(
      browserWorker.runUntil(() =>
        env.client.workflow.execute(CrawlWorkflow, { taskQueue, workflowId: input.crawlId, args: [input] }),
      ),
    );
    return { summary, calls, shells, mostInFlight };
  }

  it('renders a step of 130 pages as six chunks, four at a time, releasing the one no browser took', async () => {
    const { summary, calls, shells, mostInFlight } = await crawl(true, 130, 1);
    assert.deepEqual(summary, { pagesCrawled: 131, pagesDiscovered: 131 });
    // Taken by the worker in any order: listed by chunk.
    const ofStep2 = calls.rendered.filter((c) => c.step === 2).sort((a, b) => a.chunk! - b.chunk!);
    assert.deepEqual(
      ofStep2.map((c) => [c.chunk, c.urls.length, c.urls[0]]),
      [
        [0, 25, 'https://site.example/p/0'],
        [1, 25, 'https://site.example/p/25'],
        [2, 25, 'https://site.example/p/50'],
        [3, 25, 'https://site.example/p/75'],
        [4, 25, 'https://site.example/p/100'],
        [5, 5, 'https://site.example/p/125'],
      ],
    );
    assert.equal(mostInFlight, 4);
    // The home page alone is one chunk of its step; no shell rendering in this mode.
    assert.deepEqual(
      calls.rendered.filter((c) => c.step === 1).map((c) => [c.chunk, c.urls]),
      [[0, ['https://site.example/']]],
    );
    assert.deepEqual(shells, []);
    assert.deepEqual(
      calls.released.map((c) => [c.step, c.chunk, c.urls.length]),
      [[2, 1, 25]],
    );
    assert.ok(calls.steps.every((s) => (s as { renderAll?: boolean }).renderAll === true || isFinalStep(s)));
  });

  it('without `all` (the control): one shell rendering per step, every page of it, no chunks', async () => {
    const { calls, shells } = await crawl(false, 130);
    assert.deepEqual(calls.rendered, []);
    assert.deepEqual(
      shells.map((c) => [c.step, c.chunk, c.urls.length]),
      [
        [1, undefined, 1],
        [2, undefined, 130],
      ],
    );
    assert.ok(calls.steps.every((s) => (s as { renderAll?: boolean }).renderAll === undefined));
  });
});

/** The last call, made for the summary only, without the rendering flags. */
function isFinalStep(step: unknown): boolean {
  return (step as { renderShells?: boolean }).renderShells === undefined;
}
