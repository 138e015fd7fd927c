import { headerValue, type SnapshotPage } from '../analyzers/snapshot';
import { AuditFailure } from '../../workflows/contracts';
import { OutboundError, RedirectError } from '../outbound/errors';
import { isSameSite, type CrawlContext } from './context';
import { decodeBodyText } from './decode';
import { CRAWL_LIMITS } from './limits';
import { extractLinks, type PageLinks } from './page-links';
import { crawlRequest, fetchWithBackoff, type Fetched } from './polite-fetch';
import { errorText, isHtmlResponse, isTextType, toHops } from './responses';

/** A URL the crawl takes as a page: where it was found and how deep. */
export interface PageToFetch {
  url: string;
  /** Clicks from the home page; null: reached only from a sitemap. */
  depth: number | null;
}

export interface PageOutcome {
  /** null when the page could not be fetched at all. */
  page: SnapshotPage | null;
  /** Links and subresources of a same-site HTML page answering 2xx. */
  links: PageLinks | null;
  error?: string;
  /** The final answer was 429 after every try. */
  rateLimited?: boolean;
  /** The URL that answered last (not set for an endless redirect chain). */
  answeredUrl?: string;
}

/**
 * One page of the crawl: fetched within the host's limits, its links and subresources extracted when
 * it is a same-site HTML page answering 2xx. The home page answering 429 throughout fails the audit.
 */
export async function fetchPage(context: CrawlContext, discovered: PageToFetch): Promise<PageOutcome> {
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
  if (rateLimited && discovered.depth === 0)
    throw new AuditFailure('target_rate_limited', `${discovered.url} kept answering 429 Too Many Requests`);
  const response = result.response;
  const body = isTextType(response.headers) ? decodeBodyText(response, CRAWL_LIMITS.pageMaxBytes) : null;
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
  const answeredUrl = result.finalUrl;
  if (!answeredHtml(context, page)) return { page, links: null, rateLimited, answeredUrl };
  const links = extractLinks(page.body!, result.finalUrl, headerValue(page.headers, 'refresh'));
  return { page: { ...page, outlinks: new Set(links.links).size }, links, rateLimited, answeredUrl };
}

/** A same-site page whose final answer is 2xx HTML: it spends the budget and its links are followed. */
export function answeredHtml(context: CrawlContext, page: SnapshotPage): boolean {
  return (
    page.status >= 200 &&
    page.status < 300 &&
    page.body !== null &&
    isHtmlResponse(page.headers, page.body) &&
    isSameSite(context, page.finalUrl)
  );
}

/** A loop or an endless chain: the last hop is recorded as the page so SEO_REDIRECT_CHAIN can report it. */
function endlessRedirectPage(discovered: PageToFetch, error: RedirectError): SnapshotPage | null {
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
