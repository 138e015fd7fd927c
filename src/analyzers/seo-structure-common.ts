import { clientRedirect } from './client-redirect';
import { truncate, type ParsedPage } from './parse';
import { pageNoindex } from './seo-sitemap';
import type { CrawlSnapshot, SnapshotPage } from './snapshot';
import { homeUrl, normalizeUrl } from './site-util';
import { resourceSubject } from './subject';
import { EVIDENCE_MAX, notApplicable, type AnalyzerOutcome, type FindingDraft } from './types';

/**
 * What the site-structure analyzers share (docs/analyzers.md, Site structure): which pages count,
 * the home page, inbound link counts, the order URLs are listed in, and the score.
 */

/**
 * A 2xx HTML page that search engines may index: neither a robots/googlebot meta tag nor
 * X-Robots-Tag keeps it out, and it is not a client-side redirect (which they follow instead).
 */
export function isIndexable(p: ParsedPage): boolean {
  return p.isHtml && !pageNoindex(p) && clientRedirect(p) === null;
}

/**
 * Parsing URLs is the costly part of the structure checks: each page's are normalized once. Most
 * pages have one address, already normalized: they are only marked (the array is made again on each
 * call, short-lived), since an array and a copy of the URL kept per page was 200 bytes a page held
 * to the end of the analysis (docs/architecture.md, "Durable crawl", Memory).
 */
const PLAIN_URL = new WeakSet<SnapshotPage>();
const OWN_URLS = new WeakMap<SnapshotPage, readonly string[]>();

/** The page's addresses (as requested and as served), normalized. */
export function ownUrls(page: SnapshotPage): readonly string[] {
  if (PLAIN_URL.has(page)) return [page.url];
  let out = OWN_URLS.get(page);
  if (out === undefined) {
    const urls: string[] = [];
    for (const u of [page.url, page.finalUrl]) {
      const n = normalizeUrl(u);
      // The stored string where normalizing changed nothing: not a second copy of it.
      if (n !== null && !urls.includes(n)) urls.push(n === u ? u : n);
    }
    if (urls.length === 1 && urls[0] === page.url) PLAIN_URL.add(page);
    else OWN_URLS.set(page, urls);
    out = urls;
  }
  return out;
}

/** The crawl's start page: depth 0, or the origin's "/" as requested or served. */
export function isHomePage(snapshot: CrawlSnapshot, page: SnapshotPage): boolean {
  if (page.depth === 0) return true;
  const home = homeUrl(snapshot);
  return ownUrls(page).includes(home);
}

/** Distinct crawled pages linking to the page's requested URL: exact linkedFrom, else foundOn's length. */
export function inlinks(page: SnapshotPage): number {
  return page.linkedFrom ?? page.foundOn?.length ?? 0;
}

/** Crawled pages by each of their normalized addresses (the first record wins). */
export function pagesByUrl(pages: readonly SnapshotPage[]): Map<string, { page: SnapshotPage; order: number }> {
  const out = new Map<string, { page: SnapshotPage; order: number }>();
  pages.forEach((page, order) => {
    for (const u of ownUrls(page)) if (!out.has(u)) out.set(u, { page, order });
  });
  return out;
}

/** A URL to list, with where it sits in the crawl. */
export interface Listed {
  readonly url: string;
  /** Clicks from the home page; null when unknown (sitemap-only pages, pages not crawled). */
  readonly depth: number | null;
  /** Position in the crawl (breadth first). */
  readonly order: number;
}

/** Shallowest first (unknown depth last), then in crawl order. */
export function shallowestFirst(a: Listed, b: Listed): number {
  const da = a.depth ?? Number.POSITIVE_INFINITY;
  const db = b.depth ?? Number.POSITIVE_INFINITY;
  return da === db ? a.order - b.order : da < db ? -1 : 1;
}

/** Listed entries for URLs, looked up among the crawled pages (unknown ones sort last, as given). */
export function listUrls(urls: Iterable<string>, index: ReturnType<typeof pagesByUrl>): string[] {
  const listed: Listed[] = [];
  let unknown = Number.MAX_SAFE_INTEGER / 2;
  for (const url of urls) {
    const hit = index.get(normalizeUrl(url) ?? url);
    listed.push({ url, depth: hit?.page.depth ?? null, order: hit ? hit.order : unknown++ });
  }
  return listed.sort(shallowestFirst).map((l) => l.url);
}

/** "/a, /b, /c and 4 more": the first few of a list, as paths on the site. */
export function somePaths(urls: readonly string[], origin: string, shown = 3): string {
  const head = urls.slice(0, shown).map((u) => resourceSubject(u, origin));
  const more = urls.length - head.length;
  return more > 0 ? `${head.join(', ')} and ${more} more` : head.join(', ');
}

export function evidence(text: string): string {
  return truncate(text, EVIDENCE_MAX);
}

/**
 * Share of the applicable pages not affected (`units` pages, `affected` of them named by findings);
 * not_applicable when the crawl found no indexable HTML page. Any affected page fails the analyzer:
 * the catalog's severity says how much it matters.
 */
export function structureOutcome(
  anyIndexable: boolean,
  units: number,
  affected: number,
  findings: FindingDraft[],
): AnalyzerOutcome {
  if (!anyIndexable || units === 0) return notApplicable();
  if (findings.length === 0) return { status: 'pass', score: 1, findings };
  return { status: 'fail', score: Math.max(0, 1 - affected / units), findings };
}
