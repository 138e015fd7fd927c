import { AuditFailure } from '../../workflows/contracts';
import type { CrawlContext } from './context';
import type { Discovered, Frontier } from './frontier';
import { CRAWL_LIMITS } from './limits';
import { answeredHtml, fetchPage, type PageOutcome } from './page-fetch';
import type { SiteRobots } from './robots';

/**
 * Breadth-first crawl from `start`, level by level (a deterministic order), until the site or the
 * page budget ends; only pages answering HTML spend the budget, so a level is taken in slices as
 * large as the budget left. `afterSlice` runs after each slice (the caller starts its side probes
 * once the home page answered). URLs the budget leaves are recorded as over budget (link-checked).
 */
export async function crawlBreadthFirst(
  context: CrawlContext,
  frontier: Frontier,
  robots: SiteRobots,
  start: Discovered[],
  afterSlice: () => void,
): Promise<void> {
  let level = start;
  while (level.length > 0) {
    const nextLevel: Discovered[] = [];
    let taken = 0;
    while (taken < level.length && frontier.budgetLeft > 0) {
      const slice = level.slice(taken, taken + frontier.budgetLeft);
      taken += slice.length;
      const outcomes = await crawlBatch(context, frontier, slice);
      nextLevel.push(...(await expandLevel(context, frontier, robots, slice, outcomes)));
      afterSlice();
      if (frontier.mostlyRateLimited(3)) throw new AuditFailure('target_rate_limited', frontier.rateLimitMessage());
    }
    if (taken < level.length) {
      frontier.recordOverBudget(level.slice(taken));
      frontier.recordOverBudget(nextLevel);
      return;
    }
    level = nextLevel;
  }
}

/** Crawls a slice of one level, concurrencyPerHost at a time, reporting progress after each page. */
async function crawlBatch(
  context: CrawlContext,
  frontier: Frontier,
  batch: readonly Discovered[],
): Promise<PageOutcome[]> {
  const outcomes = new Array<PageOutcome>(batch.length);
  let nextIndex = 0;
  let answered = 0;
  let halted = false;
  const worker = async () => {
    while (nextIndex < batch.length && !halted) {
      const index = nextIndex++;
      try {
        const outcome = await fetchPage(context, batch[index]!);
        if (outcome.rateLimited) frontier.rateLimitedPages++;
        if (outcome.answeredUrl) frontier.seen.add(outcome.answeredUrl);
        outcomes[index] = outcome;
        frontier.pageRequests++;
        answered++;
      } catch (error) {
        halted = true; // the other workers finish their current request and take no more
        throw error;
      }
      // Most requests keep answering 429: give up early rather than crawl the whole level slowly.
      if (frontier.mostlyRateLimited(6)) {
        halted = true;
        throw new AuditFailure('target_rate_limited', frontier.rateLimitMessage());
      }
      context.input.onProgress?.({
        phase: 'crawling',
        pagesCrawled: frontier.pageCount + answered,
        pagesDiscovered: frontier.pagesDiscovered,
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CRAWL_LIMITS.concurrencyPerHost, batch.length) }, worker));
  return outcomes;
}

/** Records the batch's pages in crawl order and returns the next level: new same-site links, robots permitting. */
async function expandLevel(
  context: CrawlContext,
  frontier: Frontier,
  robots: SiteRobots,
  batch: readonly Discovered[],
  outcomes: readonly PageOutcome[],
): Promise<Discovered[]> {
  const nextLevel: Discovered[] = [];
  for (let i = 0; i < batch.length; i++) {
    const discovered = batch[i]!;
    const { page, links, error } = outcomes[i]!;
    if (!page) {
      if (discovered.depth === 0)
        throw new AuditFailure(
          'domain_unreachable',
          `could not fetch the home page ${discovered.url}: ${error ?? 'unreachable'}`,
        );
      frontier.recordUnreachablePage(discovered);
      continue;
    }
    const firstRead = frontier.addPage(page, discovered, answeredHtml(context, page));
    // A page reached again through a redirect to it has its links counted once.
    if (!links || !firstRead) continue;
    const pageUrl = page.finalUrl;
    frontier.recordResources(pageUrl, links.resources);
    // Each distinct target once per page, so the frontier's referrer counts are exact.
    const depth = discovered.depth === null ? null : discovered.depth + 1;
    for (const link of new Set(links.links)) {
      const found = await frontier.discover(context, robots, link, pageUrl, depth);
      if (found) nextLevel.push(found);
    }
  }
  return nextLevel;
}
