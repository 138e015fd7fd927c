import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { CrawlActivities } from '../../activities/crawl';
import { CrawlWorkflow } from '../../workflows';
import type { CrawlWorkflowInput } from '../../workflows/contracts';
import { workflowBundle } from '../support/stack';
import { workflowTestEnvironment } from './support/environment';

type PartInput = Parameters<CrawlActivities['observePagesPart']>[0];

/** Parts observed at once (the workflow's window). */
const WINDOW = 4;

/**
 * CrawlWorkflow's observe phase (patch observe-parts) on a dev server with stubbed activities: once
 * the checks end, the pages are observed in parts of `stepPages`, four at a time, up to the part that
 * reaches the last page and never past the URLs discovered (patch observe-parts-bounded); across
 * continue-as-new the crawl's summary is carried to the end.
 */
describe('CrawlWorkflow observing the pages in parts', function () {
  this.timeout(120_000);

  async function crawl(pages: number, stepsPerRun: number) {
    const env = await workflowTestEnvironment();
    const taskQueue = `crawl-parts-test-${randomUUID()}`;
    const parts: PartInput[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const result = (claimed: number) => ({
      claimed,
      pagesCrawled: pages,
      pagesDiscovered: pages + 5,
      pageRequests: pages,
      rateLimitedPages: 0,
    });
    const activities = {
      beginCrawl: async () => ({ window: 2 }),
      collectSitemaps: async () => undefined,
      probeSite: async () => undefined,
      admitSitemapUrls: async () => undefined,
      closeFrontier: async () => undefined,
      crawlPageStep: async (input: { step: number }) => result(input.step === 2 ? pages - 1 : input.step === 1 ? 1 : 0),
      checkTargetsStep: async () => result(0),
      observePagesPart: async (input: PartInput) => {
        parts.push(input);
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        // Held until the window is full (or a second passed: the last parts): a slow test machine
        // starting the four parts further apart still has them all in flight at once.
        for (const started = Date.now(); inFlight < WINDOW && Date.now() - started < 1000;)
          await new Promise((resolve) => setTimeout(resolve, 10));
        inFlight--;
        return { claimed: Math.max(0, Math.min(input.partPages, pages - input.part * input.partPages)) };
      },
      dropCrawl: async () => undefined,
    } as unknown as CrawlActivities;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities,
    });
    const input: CrawlWorkflowInput = {
      crawlId: `crawl-${randomUUID()}`,
      auditId: 'aud_test',
      origin: 'https://site.example',
      pageBudget: 1000,
      stepPages: 10,
      heartbeatTimeoutMs: 60_000,
      stepsPerRun,
    };
    const handle = await env.client.workflow.start(CrawlWorkflow, {
      taskQueue,
      workflowId: input.crawlId,
      args: [input],
    });
    const summary = await worker.runUntil(handle.result());
    return { summary, parts, mostInFlight, input };
  }

  it('observes 95 pages as ten parts of ten, four at a time, none past the 100 URLs discovered', async () => {
    const { summary, parts, mostInFlight, input } = await crawl(95, 400);
    assert.deepEqual(summary, { pagesCrawled: 95, pagesDiscovered: 100 });
    const numbers = parts.map((p) => p.part).sort((a, b) => a - b);
    assert.deepEqual(numbers, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(mostInFlight, WINDOW);
    for (const part of parts)
      assert.deepEqual(part, { ...part, crawlId: input.crawlId, auditId: 'aud_test', partPages: 10 });
  });

  it('a small site: one part, where the window of four would start three that find nothing', async () => {
    const { parts } = await crawl(3, 400);
    assert.deepEqual(
      parts.map((p) => p.part),
      [0],
      'three pages and eight URLs discovered fill one part of ten',
    );
  });

  it('goes on observing across continue-as-new and returns the summary the crawl made', async () => {
    const { summary, parts } = await crawl(40, 3);
    assert.deepEqual(summary, { pagesCrawled: 40, pagesDiscovered: 45 });
    const numbers = [...new Set(parts.map((p) => p.part))].sort((a, b) => a - b);
    assert.deepEqual(numbers.slice(0, 5), [0, 1, 2, 3, 4], 'each part from the first to the one past the end');
  });
});
