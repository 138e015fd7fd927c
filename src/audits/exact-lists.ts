import type { PageSummary } from '../analyzers/page-summary';
import type { CrawlSnapshot } from '../analyzers/snapshot';
import type { CrawledPage, Finding } from '../schemas/audit';
import type { FindingUrlFact, PageFact } from './crawl-facts';

/**
 * The audit JSON names at most this many pages in `crawl.pages` and URLs per finding, so it stays
 * small whatever the site's size; every one of them is stored beside it (docs/decisions.md).
 */
export const JSON_LIST_CAP = 100;

/**
 * The crawled pages as listing rows: a redirecting URL is a row of its own, pointing at its final URL.
 * Made from the summaries each time they are gone over (the write, and a write retried after an
 * outage), never held all at once.
 */
export function pageFactsOf(summaries: Iterable<PageSummary>): Iterable<PageFact> {
  return {
    *[Symbol.iterator](): Iterator<PageFact> {
      const listed = new Set<string>();
      for (const page of summaries)
        for (const row of pageRows(page))
          if (!listed.has(row.url)) {
            listed.add(row.url);
            yield row;
          }
    },
  };
}

/** A page's redirect hops, then the page at its final URL. */
function pageRows(page: PageSummary): PageFact[] {
  const rows = page.redirects.map((hop, index): PageFact => ({
    ...EMPTY_ROW,
    url: hop.url,
    status: hop.status,
    depth: page.depth,
    // The links counted lead to the URL first requested; later hops are reached only by redirect.
    inlinks: index === 0 ? page.inlinks : 0,
    redirect_to: page.url,
  }));
  rows.push({
    url: page.url,
    status: page.status_code,
    depth: page.depth,
    inlinks: page.redirects.length > 0 ? 0 : page.inlinks,
    outlinks: page.outlinks,
    title: page.title ?? null,
    content_type: page.content_type,
    bytes: page.bytes,
    response_ms: page.ttfb_ms,
    indexable: page.indexable,
    canonical: page.canonical,
    redirect_to: null,
  });
  return rows;
}

const EMPTY_ROW = {
  outlinks: 0,
  title: null,
  content_type: null,
  bytes: 0,
  response_ms: 0,
  indexable: false,
  canonical: null,
} as const;

/** The first pages of the crawl, which the audit JSON's `crawl.pages` lists (assembly keeps its fields only). */
export function jsonPages(summaries: Iterable<PageSummary>): readonly CrawledPage[] {
  const first: CrawledPage[] = [];
  for (const summary of summaries) {
    if (first.length === JSON_LIST_CAP) break;
    first.push(summary);
  }
  return first;
}

interface UrlFacts {
  depth: number | null;
  referrers: number | null;
}

/** Depth and referrer count of every URL the crawl knows: pages, redirect hops, checked targets. */
export function urlFactsIndex(pages: Iterable<PageFact>, snapshot: CrawlSnapshot): Map<string, UrlFacts> {
  const index = new Map<string, UrlFacts>();
  for (const page of pages) index.set(page.url, { depth: page.depth, referrers: page.inlinks });
  for (const check of snapshot.linkChecks ?? [])
    if (!index.has(check.url))
      index.set(check.url, { depth: null, referrers: check.linkedFrom ?? check.foundOn.length });
  for (const resource of snapshot.resources ?? [])
    if (!index.has(resource.url))
      index.set(resource.url, { depth: null, referrers: resource.linkedFrom ?? resource.foundOn?.length ?? null });
  return index;
}

/**
 * Every finding with its exact `count` and its first JSON_LIST_CAP URLs, shallowest first (ties keep
 * the analyzer's order); every URL becomes a stored row for the finding's URL listing. The rows are
 * made a finding at a time each time they are gone over, so a site where every page fails ten checks
 * never holds its million rows at once.
 */
export function capFindingUrls(
  findings: readonly Finding[],
  index: ReadonlyMap<string, UrlFacts>,
): { findings: Finding[]; findingUrls: Iterable<FindingUrlFact> } {
  const capped = findings.map((finding) => ({
    ...finding,
    urls: orderedUrls(finding, index)
      .slice(0, JSON_LIST_CAP)
      .map((u) => u.url),
    count: finding.urls.length,
  }));
  const findingUrls = {
    *[Symbol.iterator](): Iterator<FindingUrlFact> {
      for (const finding of findings) {
        let position = 0;
        for (const { url, facts } of orderedUrls(finding, index))
          yield { finding_id: finding.id, position: position++, url, depth: facts.depth, referrers: facts.referrers };
      }
    },
  };
  return { findings: capped, findingUrls };
}

function orderedUrls(finding: Finding, index: ReadonlyMap<string, UrlFacts>) {
  return finding.urls
    .map((url, order) => ({ url, order, facts: index.get(url) ?? { depth: null, referrers: null } }))
    .sort((a, b) => depthRank(a.facts.depth) - depthRank(b.facts.depth) || a.order - b.order);
}

function depthRank(depth: number | null): number {
  return depth ?? Number.MAX_SAFE_INTEGER;
}
