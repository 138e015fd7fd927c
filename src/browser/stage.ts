import type { BrowserPageResult, BrowserStageResult } from './stage-result';

export interface StageSteps {
  /** Renders one page (the pool: never throws for the page's sake). */
  render(url: string): Promise<BrowserPageResult>;
  /** The crawl's sample (home page first), once the crawl has ended. */
  sample(): Promise<string[]>;
  /** Told after each page, e.g. to heartbeat. */
  onPage?(rendered: number): void;
  signal?: AbortSignal;
}

/**
 * The browser stage of one audit attempt: the home page at once (it needs no crawl), then, once the
 * crawl has chosen them, the other sampled pages one after another. Pages come out in sampling
 * order; the home page's entry takes the URL the crawl ended on (a redirect target).
 */
export async function runBrowserStage(homeUrl: string, steps: StageSteps): Promise<BrowserStageResult> {
  const started = Date.now();
  const home = await steps.render(homeUrl);
  steps.onPage?.(1);
  return renderSample(home, await steps.sample(), steps, started);
}

/**
 * The rest of the stage once the crawl's sample is known (home page first): the pages after the
 * home page rendered one after another, the home page's entry taking the URL the crawl ended on.
 */
export async function renderSample(
  home: BrowserPageResult,
  sample: string[],
  steps: Omit<StageSteps, 'sample'>,
  startedMs: number,
): Promise<BrowserStageResult> {
  const pages: BrowserPageResult[] = [{ ...home, url: sample[0] ?? home.url }];
  for (const url of sample.slice(1)) {
    steps.signal?.throwIfAborted();
    pages.push(await steps.render(url));
    steps.onPage?.(pages.length);
  }
  return { pages, durationMs: Date.now() - startedMs };
}
