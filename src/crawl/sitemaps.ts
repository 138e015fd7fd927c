import { Parser } from 'htmlparser2';
import { resolveUrl } from '../analyzers/page-references';
import type { SitemapFetch } from '../analyzers/snapshot';
import { OutboundError } from '../outbound/errors';
import { isSameSite, type CrawlContext } from './context';
import { decodeBodyText } from './decode';
import { referredBy, type Discovered, type Frontier } from './frontier';
import { CRAWL_LIMITS } from './limits';
import { crawlRequest, fetchWithBackoff } from './polite-fetch';
import { errorText } from './responses';
import type { SiteRobots } from './robots';

interface ParsedSitemap {
  root: string | null;
  xmlError?: string;
  locCount: number;
  locs: string[];
}

/** Parses a sitemap (urlset or sitemapindex) with htmlparser2 in xmlMode, checking tag balance. */
export function parseSitemapXml(xml: string, maxLocs: number): ParsedSitemap {
  let root: string | null = null;
  let xmlError: string | undefined;
  const openElements: string[] = [];
  let locCount = 0;
  const locs: string[] = [];
  let inLoc = false;
  let locText = '';
  let closedRoot = false;
  let textAfterRoot = false;
  // Where the last start tag began: a self-closing element (`<xhtml:link …/>`) is closed at once, by
  // the same token, where htmlparser2 also reports its close as implied.
  let openedAt = -1;
  const localName = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();
  const parser = new Parser(
    {
      onopentag(name) {
        openedAt = parser.startIndex;
        if (openElements.length === 0) {
          if (root !== null || closedRoot) xmlError ??= `more than one root element (<${name}>)`;
          root ??= localName(name);
        }
        openElements.push(name);
        if (localName(name) === 'loc') {
          inLoc = true;
          locText = '';
        }
      },
      ontext(text) {
        if (inLoc) locText += text;
        else if (openElements.length === 0 && text.trim() !== '') textAfterRoot = true;
      },
      onclosetag(name, isImplied) {
        if (isImplied && parser.startIndex !== openedAt) xmlError ??= `element <${name}> is not closed`;
        if (openElements.pop() !== name) xmlError ??= `mismatched closing tag </${name}>`;
        if (localName(name) === 'loc' && inLoc) {
          inLoc = false;
          locCount++;
          const loc = locText.trim();
          if (locs.length < maxLocs && loc !== '') locs.push(loc);
        }
        if (openElements.length === 0) closedRoot = true;
      },
      onerror(error) {
        xmlError ??= error.message;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  if (root === null) xmlError ??= 'no root element';
  if (textAfterRoot) xmlError ??= 'text outside the root element';
  return { root, ...(xmlError !== undefined ? { xmlError } : {}), locCount, locs };
}

type SitemapSource = SitemapFetch['source'];

/** The sitemaps robots.txt names, then /sitemap.xml, then those sitemap indexes list (at most maxSitemapFetches). */
export async function collectSitemaps(context: CrawlContext, robots: SiteRobots): Promise<SitemapFetch[]> {
  const fetches: SitemapFetch[] = [];
  const requested = new Set<string>();
  const queue: Array<{ url: string; source: SitemapSource }> = [];
  const enqueue = (url: string | null, source: SitemapSource) => {
    if (url && !requested.has(url)) {
      requested.add(url);
      queue.push({ url, source });
    }
  };
  for (const named of robots.originRules.sitemaps())
    enqueue(resolveUrl(named, `${context.origin}/robots.txt`), 'robots');
  enqueue(`${context.origin}/sitemap.xml`, 'default');
  while (queue.length > 0 && fetches.length < CRAWL_LIMITS.maxSitemapFetches) {
    const { url, source } = queue.shift()!;
    const { sitemap, finalUrl } = await fetchSitemap(context, url, source);
    fetches.push(sitemap);
    if (sitemap.root === 'sitemapindex')
      for (const loc of sitemap.locs ?? []) enqueue(resolveUrl(loc, finalUrl), 'index');
  }
  return fetches;
}

async function fetchSitemap(
  context: CrawlContext,
  url: string,
  source: SitemapSource,
): Promise<{ sitemap: SitemapFetch; finalUrl: string }> {
  const maxBytes = CRAWL_LIMITS.sitemapMaxBytes;
  try {
    const { result } = await fetchWithBackoff(
      context,
      crawlRequest(context, url, maxBytes, { accept: 'application/xml,text/xml;q=0.9,*/*;q=0.5' }),
    );
    const response = result.response;
    if (response.status < 200 || response.status > 299)
      return { sitemap: { url, source, status: response.status, root: null }, finalUrl: result.finalUrl };
    let text = decodeBodyText(response, maxBytes);
    // A .xml.gz served as application/gzip without Content-Encoding.
    const gzipFile =
      /\.gz$/i.test(new URL(result.finalUrl).pathname) && response.body[0] === 0x1f && response.body[1] === 0x8b;
    if (gzipFile && !response.headers['content-encoding']) {
      text = decodeBodyText({ ...response, headers: { ...response.headers, 'content-encoding': 'gzip' } }, maxBytes);
    }
    const parsed = parseSitemapXml(text, CRAWL_LIMITS.maxLocsKept);
    return {
      sitemap: { url, source, status: response.status, bytes: Buffer.byteLength(text), ...parsed },
      finalUrl: result.finalUrl,
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return { sitemap: { url, source, status: null, error: errorText(error), root: null }, finalUrl: url };
  }
}

/**
 * After the linked pages are crawled: disallowed URLs listed in a sitemap are flagged as such, and
 * the site's sitemap entries no crawled page linked to are returned, to be crawled while the budget
 * lasts (SEO_ORPHAN_PAGE), or recorded as disallowed when robots.txt says so.
 */
export async function mergeSitemapUrls(
  context: CrawlContext,
  frontier: Frontier,
  robots: SiteRobots,
  sitemaps: readonly SitemapFetch[],
): Promise<Discovered[]> {
  const sitemapUrls = sitemapPageUrls(context, sitemaps);
  frontier.flagDisallowedInSitemap(sitemapUrls);
  const crawledUrls = frontier.crawledUrls();
  const onlyInSitemaps: Discovered[] = [];
  for (const url of sitemapUrls) {
    if (!isSameSite(context, url) || crawledUrls.has(url) || frontier.knows(url)) continue;
    if (frontier.recordSitemapAlias(url)) continue;
    if (!(await robots.isAllowed(url))) {
      frontier.recordDisallowed(url, 1, referredBy(null), true);
      continue;
    }
    onlyInSitemaps.push(frontier.admitFromSitemap(url));
  }
  return onlyInSitemaps;
}

/** The page URLs the site's sitemaps list (`urlset` entries that are absolute URLs), resolved. */
export function sitemapPageUrls(context: CrawlContext, sitemaps: readonly SitemapFetch[]): Set<string> {
  const sitemapUrls = new Set<string>();
  for (const sitemap of sitemaps) {
    // An index's <loc>s are sitemaps, not pages.
    if (sitemap.root !== 'urlset') continue;
    for (const loc of sitemap.locs ?? []) {
      // Entries must be absolute URLs; `<loc>None</loc>` names no page (SEO_SITEMAP_INVALID reports it).
      if (!/^https?:\/\//i.test(loc)) continue;
      const url = resolveUrl(loc, context.homeUrl);
      if (url) sitemapUrls.add(url);
    }
  }
  return sitemapUrls;
}
