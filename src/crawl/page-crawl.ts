import type { SnapshotPage } from '../analyzers/snapshot';
import { AuditFailure } from '../../workflows/contracts';
import { OutboundError, RedirectError } from '../outbound/errors';
import { isSameSite, type CrawlContext } from './context';
import { decodeBodyText } from './decode';
import type { Discovered, Frontier } from './frontier';
import { CRAWL_LIMITS } from './limits';
import { extractLinks, type PageLinks } from './page-links';
import { crawlRequest, fetchWithBackoff, type Fetched } from './polite-fetch';
import { errorText, isHtmlResponse, isTextType, toHops } from './responses';
import type { SiteRobots } from './robots';

interface PageOutcome {
  /** null when the page could not be fetched at all. */
  page: SnapshotPage | null;
  /** Links and subresources of a same-site HTML page answering 2xx. */
  links: PageLinks | null;
  error?: string;
}

/**
 * Breadth-first crawl of the site, level by level (a deterministic order), until the page budget is
 * spent. `afterLevel` runs once each level is expanded (the caller starts its side probes after the
 * home page answered). Left-over URLs end up in `frontier.uncrawled`.
 */
export async function crawlBreadthFirst(
  context: CrawlContext,
  frontier: Frontier,
  robots: SiteRobots,
  afterLevel: () => void,
): Promise<void> {
  let level: Discovered[] = [frontier.home];
  while (level.length > 0 && frontier.pageCount < frontier.budget) {
    const batch = level.slice(0, frontier.budget - frontier.pageCount);
    frontier.recordUncrawled(level.slice(batch.length));
    const outcomes = await crawlBatch(context, frontier, batch, level.length - batch.length);
    level = await expandLevel(context, frontier, robots, batch, outcomes);
    afterLevel();
    if (frontier.mostlyRateLimited(3)) throw new AuditFailure('target_rate_limited', frontier.rateLimitMessage());
  }
  frontier.recordUncrawled(level); // left over by the page budget
}

/** Crawls a batch of one level, concurrencyPerHost at a time, reporting progress after each page. */
async function crawlBatch(
  context: CrawlContext,
  frontier: Frontier,
  batch: readonly Discovered[],
  queuedBeyondBatch: number,
): Promise<PageOutcome[]> {
  const outcomes = new Array<PageOutcome>(batch.length);
  const pagesBefore = frontier.pageCount;
  let nextIndex = 0;
  let fetchedPages = 0;
  let halted = false;
  const worker = async () => {
    while (nextIndex < batch.length && !halted) {
      const index = nextIndex++;
      try {
        outcomes[index] = await crawlPage(context, frontier, batch[index]!);
        frontier.pageRequests++;
      } catch (error) {
        halted = true; // the other workers finish their current request and take no more
        throw error;
      }
      if (outcomes[index]!.page) fetchedPages++;
      // Most requests keep answering 429: give up early rather than crawl the whole level slowly.
      if (frontier.mostlyRateLimited(6)) {
        halted = true;
        throw new AuditFailure('target_rate_limited', frontier.rateLimitMessage());
      }
      context.input.onProgress?.({
        pagesCrawled: pagesBefore + fetchedPages,
        queued: batch.length - nextIndex + queuedBeyondBatch,
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
    frontier.addPage(page, discovered);
    if (!links) continue;
    const pageUrl = page.finalUrl;
    frontier.recordResources(pageUrl, links.resources);
    // Each distinct target once per page, so the frontier's referrer counts are exact.
    for (const link of new Set(links.links)) {
      const found = await frontier.discover(context, robots, link, pageUrl, discovered.depth + 1);
      if (found) nextLevel.push(found);
    }
  }
  return nextLevel;
}

async function crawlPage(context: CrawlContext, frontier: Frontier, discovered: Discovered): Promise<PageOutcome> {
  let fetched: Fetched;
  try {
    fetched = await fetchWithBackoff(
      context,
      crawlRequest(context, discovered.url, CRAWL_LIMITS.pageMaxBytes, {
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
      }),
    );
  } catch (error) {
    if (error instanceof RedirectError) {
      const lastHopPage = endlessRedirectPage(discovered, error);
      if (lastHopPage) return { page: lastHopPage, links: null };
    }
    if (error instanceof OutboundError) return { page: null, links: null, error: errorText(error) };
    throw error;
  }
  const { result, rateLimited } = fetched;
  if (rateLimited) {
    frontier.rateLimitedPages++;
    if (discovered.depth === 0)
      throw new AuditFailure('target_rate_limited', `${discovered.url} kept answering 429 Too Many Requests`);
  }
  const response = result.response;
  const body = isTextType(response.headers) ? decodeBodyText(response, CRAWL_LIMITS.pageMaxBytes) : null;
  frontier.seen.add(result.finalUrl);
  const page: SnapshotPage = {
    url: discovered.url,
    finalUrl: result.finalUrl,
    status: response.status,
    headers: response.headers,
    body,
    ttfbMs: Math.round(response.ttfbMs),
    bytes: response.body.length,
    depth: discovered.depth,
    redirectChain: toHops(result.chain.slice(0, -1)),
  };
  const html =
    response.status >= 200 &&
    response.status < 300 &&
    isHtmlResponse(response.headers, body) &&
    isSameSite(context, result.finalUrl);
  return { page, links: html && body !== null ? extractLinks(body, result.finalUrl) : null };
}

/** A loop or an endless chain: the last hop is recorded as the page so SEO_REDIRECT_CHAIN can report it. */
function endlessRedirectPage(discovered: Discovered, error: RedirectError): SnapshotPage | null {
  const chain = error.redirectChain ?? [];
  const last = chain[chain.length - 1];
  if (!last) return null;
  return {
    url: discovered.url,
    finalUrl: last.url,
    status: last.status,
    headers: {},
    body: null,
    ttfbMs: 0,
    bytes: 0,
    depth: discovered.depth,
    redirectChain: toHops(chain.slice(0, -1)),
  };
}
