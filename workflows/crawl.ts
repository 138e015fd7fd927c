import { continueAsNew, isCancellation, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { CrawlActivities } from '../activities/crawl';
import type { ShellRenderActivities } from '../activities/render';
import {
  AUDIT_RUN_RETRY,
  BROWSER_STAGE_RETRY,
  type CrawlCursor,
  type CrawlSummary,
  type CrawlWorkflowInput,
} from './contracts';

/**
 * With a browser stage, the application shells a page step finds are rendered on the browser task
 * queue before the step counts as done, so the crawl goes on through the links they show
 * (docs/architecture.md, "Durable crawl"); before, no page was rendered during the crawl.
 */
const APP_SHELL_RENDER = 'app-shell-render';
/**
 * With `render: "all"` (its `render.all`), every HTML page a step finds is rendered and checked on the
 * browser task queue, in chunks of RENDER_CHUNK_PAGES spread over the browser workers, before the
 * step counts as done; before, only its application shells were rendered, in one activity.
 */
const RENDER_ALL = 'render-all';
/** Pages one rendering activity takes with `render: "all"`: a step's 500 pages spread over 20 tasks. */
const RENDER_CHUNK_PAGES = 25;
/**
 * Chunks of one step in flight at once (two steps in flight: 8 chunks, 200 pages, a crawl's share of
 * the browser queue): up to 8 browser slots work for one audit, and one worker alone renders what
 * waits in about 5 minutes, well within the browser stage's bound.
 */
const RENDER_CHUNKS_IN_FLIGHT = 4;

/**
 * Once the crawl has ended, its pages are observed by the analyzers in parts of `stepPages`, each an
 * activity any audit worker takes, OBSERVE_PARTS_IN_FLIGHT at a time, for the analysis to take
 * (docs/architecture.md, "Analysis in parts"); before, the analysis observed every page itself.
 */
const OBSERVE_PARTS = 'observe-parts';
/** Parts observed at once: up to four audit workers share the observing of one audit's pages. */
const OBSERVE_PARTS_IN_FLIGHT = 4;
/**
 * No part starts past the URLs the crawl discovered (it stored a page for at most each of them); a
 * page past the last part would be observed by the analysis itself. Before, the window started up to
 * OBSERVE_PARTS_IN_FLIGHT - 1 parts past the last page, each finding nothing: a small site's audit
 * ran three activities for nothing.
 */
const OBSERVE_PARTS_BOUNDED = 'observe-parts-bounded';

/**
 * One audit attempt's crawl, as checkpointed steps (docs/architecture.md "Durable crawl"): a sliding
 * window of step activities, each taking up to CRAWL_STEP_PAGES pages, any audit worker taking any
 * step. The frontier and every page's facts live in Postgres, so this workflow keeps only a cursor,
 * and it continues as new every `stepsPerRun` steps. Phases: the pages linked from the home page,
 * then the pages only the sitemaps list, then the link and resource checks, then (patch
 * observe-parts) the analyzers' observing of the pages, in parts.
 */
export async function CrawlWorkflow(input: CrawlWorkflowInput): Promise<CrawlSummary> {
  const steps = proxyActivities<CrawlActivities>({
    startToCloseTimeout: '15 minutes',
    // A step that cannot finish at all (a bug) ends the crawl rather than retrying for ever.
    scheduleToCloseTimeout: '2 hours',
    heartbeatTimeout: input.heartbeatTimeoutMs,
    retry: AUDIT_RUN_RETRY,
  });
  const stepInput = (step: number) => ({
    crawlId: input.crawlId,
    auditId: input.auditId,
    step,
    stepPages: input.stepPages,
  });
  const render = input.render && patched(APP_SHELL_RENDER) ? shellRendering(input, steps) : undefined;
  // patched() only where the input asks for it: an execution's input never changes, so replay agrees.
  const renderAll = render !== undefined && input.render?.all === true && patched(RENDER_ALL);
  // A step's shells are rendered within the step: the window does not end a phase while a rendering
  // may still find pages, and the claims wait for links it finds shallower.
  const shellsOf = async <T extends { shells?: string[] }>(step: number, result: T): Promise<T> => {
    if (render && result.shells?.length) await render(step, result.shells, renderAll);
    return result;
  };
  const pageInput = (step: number) => ({
    ...stepInput(step),
    ...(render ? { renderShells: true } : {}),
    ...(renderAll ? { renderAll: true } : {}),
  });
  const pageStep = async (step: number) => shellsOf(step, await steps.crawlPageStep(pageInput(step)));
  let cursor: CrawlCursor;
  let startedSteps = 0;
  let sideWork: Promise<unknown> = Promise.resolve();
  if (input.cursor) cursor = input.cursor;
  else {
    const { window } = await steps.beginCrawl(input);
    // The home page alone first: a site that does not answer gets no other request.
    const home = await steps.crawlPageStep(pageInput(1));
    startedSteps = 1;
    cursor = { phase: 'pages', nextStep: 2, window };
    const crawlId = { crawlId: input.crawlId };
    sideWork = Promise.all([steps.collectSitemaps(crawlId), steps.probeSite(crawlId)]);
    await shellsOf(1, home);
  }
  const mayStart = () => startedSteps < input.stepsPerRun && !workflowInfo().continueAsNewSuggested;
  const started = () => startedSteps++;
  const observe = (part: number) =>
    steps.observePagesPart({ crawlId: input.crawlId, auditId: input.auditId, part, partPages: input.stepPages });
  for (;;) {
    const step = cursor.phase === 'checks' ? (n: number) => steps.checkTargetsStep(stepInput(n)) : pageStep;
    const ended =
      cursor.phase === 'observe'
        ? await partsWindow(cursor, partsBound(cursor, input.stepPages), (n) => (started(), observe(n)), mayStart)
        : await slidingWindow(cursor, (n) => (started(), step(n)), mayStart);
    // Side work is never carried over: it ends within this run.
    await sideWork;
    if (!ended) return continueAsNew<typeof CrawlWorkflow>({ ...input, cursor });
    if (cursor.phase === 'pages') {
      await steps.admitSitemapUrls({ crawlId: input.crawlId });
      cursor = { ...cursor, phase: 'sitemap-pages' };
    } else if (cursor.phase === 'sitemap-pages') {
      await steps.closeFrontier({ crawlId: input.crawlId });
      cursor = { ...cursor, phase: 'checks' };
    } else if (cursor.phase === 'checks') {
      const crawled = summary(await steps.crawlPageStep(stepInput(cursor.nextStep++)));
      if (!patched(OBSERVE_PARTS)) return crawled;
      cursor = { phase: 'observe', nextStep: 0, window: OBSERVE_PARTS_IN_FLIGHT, crawled };
    } else return cursor.crawled!;
  }
}

/**
 * Keeps up to `cursor.window` steps in flight. A step that found nothing to take while others ran
 * waits for one of them (it may have found more); one that found nothing alone ends the phase.
 * Returns false when it stopped starting steps for continue-as-new (all in flight finished).
 */
async function slidingWindow(
  cursor: CrawlCursor,
  runStep: (step: number) => Promise<{ claimed: number }>,
  mayStart: () => boolean,
): Promise<boolean> {
  const inFlight = new Map<number, Promise<void>>();
  let ended = false;
  let waiting = false;
  for (;;) {
    while (!ended && !waiting && inFlight.size < cursor.window && mayStart()) {
      const step = cursor.nextStep++;
      const alone = inFlight.size === 0;
      inFlight.set(
        step,
        runStep(step).then(({ claimed }) => {
          inFlight.delete(step);
          if (claimed > 0) waiting = false;
          else if (alone) ended = true;
          else waiting = true;
        }),
      );
    }
    if (inFlight.size === 0) {
      if (ended) return true;
      if (!mayStart()) return false;
      waiting = false; // nothing in flight can find more: ask once more, alone
      continue;
    }
    await Promise.race(inFlight.values());
  }
}

/**
 * Keeps up to `cursor.window` parts in flight, in order, none from `bound.parts` on; a part with
 * fewer than `partPages` pages reached the crawl's last page, and no part after it is started.
 * Returns false when it stopped starting parts for continue-as-new (all in flight finished).
 */
async function partsWindow(
  cursor: CrawlCursor,
  bound: { partPages: number; parts: number },
  observe: (part: number) => Promise<{ claimed: number }>,
  mayStart: () => boolean,
): Promise<boolean> {
  const { partPages } = bound;
  const inFlight = new Map<number, Promise<void>>();
  let end = bound.parts;
  for (;;) {
    while (cursor.nextStep < end && inFlight.size < cursor.window && mayStart()) {
      const part = cursor.nextStep++;
      inFlight.set(
        part,
        observe(part).then(({ claimed }) => {
          inFlight.delete(part);
          if (claimed < partPages) end = Math.min(end, part + 1);
        }),
      );
    }
    if (inFlight.size === 0) return cursor.nextStep >= end;
    await Promise.race(inFlight.values());
  }
}

/** The parts that may hold pages (patch observe-parts-bounded): as many as the discovered URLs fill. */
function partsBound(cursor: CrawlCursor, partPages: number): { partPages: number; parts: number } {
  const discovered = cursor.crawled?.pagesDiscovered;
  const bounded = discovered !== undefined && patched(OBSERVE_PARTS_BOUNDED);
  return { partPages, parts: bounded ? Math.ceil(discovered / partPages) : Infinity };
}

/** A rendering activity's pages: a step's shells, or one chunk of its pages. */
type RenderStepInput = Parameters<ShellRenderActivities['renderCrawledPages']>[0];

/**
 * Renders one step's shells on the browser task queue (a lost browser worker is retried), waiting at
 * most the browser stage's bound; past it the pages are released unrendered: infrastructure delays
 * the crawl, never fails it. With `all` the step's pages go in chunks, each an activity of its own
 * that any browser worker may take, RENDER_CHUNKS_IN_FLIGHT at a time, rendered with their checks and
 * released on their own.
 */
function shellRendering(input: CrawlWorkflowInput, steps: ReturnType<typeof proxyActivities<CrawlActivities>>) {
  const browser = proxyActivities<ShellRenderActivities>({
    taskQueue: input.render!.taskQueue,
    scheduleToCloseTimeout: input.render!.timeoutMs,
    heartbeatTimeout: '1 minute',
    retry: BROWSER_STAGE_RETRY,
  });
  const renderOrRelease = async (pages: RenderStepInput, rendering: Promise<unknown>): Promise<void> => {
    try {
      await rendering;
    } catch (err) {
      if (isCancellation(err)) throw err;
      await steps.releaseShellPages({ ...pages, reason: 'no browser rendered the page within the time allowed' });
    }
  };
  return async (step: number, urls: string[], all: boolean): Promise<void> => {
    if (!all) {
      const shells = { crawlId: input.crawlId, step, urls };
      return renderOrRelease(shells, browser.renderShellPages(shells));
    }
    const chunks: RenderStepInput[] = [];
    for (let at = 0; at < urls.length; at += RENDER_CHUNK_PAGES)
      chunks.push({
        crawlId: input.crawlId,
        step,
        chunk: chunks.length,
        urls: urls.slice(at, at + RENDER_CHUNK_PAGES),
      });
    // A few chunks of the step at a time: the queue holds what browser workers can take soon, so a
    // chunk's bound measures a missing worker, not this crawl's own backlog.
    let next = 0;
    const lane = async () => {
      for (let chunk = chunks[next++]; chunk; chunk = chunks[next++])
        await renderOrRelease(chunk, browser.renderCrawledPages(chunk));
    };
    await Promise.all(Array.from({ length: Math.min(RENDER_CHUNKS_IN_FLIGHT, chunks.length) }, lane));
  };
}

function summary(last: { pagesCrawled: number; pagesDiscovered: number }): CrawlSummary {
  return { pagesCrawled: last.pagesCrawled, pagesDiscovered: last.pagesDiscovered };
}
