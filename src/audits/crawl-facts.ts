/**
 * What a live audit keeps about its crawl beyond the audit JSON (docs/decisions.md, "Whole-site
 * audits"): one row per URL the crawl requested, and every URL of every finding. The JSON holds the
 * first 100 of each; the pages and finding-URL endpoints and the CSV exports page through these.
 */

/** One requested URL of the crawl: a page, a redirect, or an error answer. */
export interface PageFact {
  url: string;
  /** The status this URL answered (a redirecting URL: its 3xx); null when it could not be fetched. */
  status: number | null;
  /** Clicks from the home page (0) by the shortest path of links; null for a page only in a sitemap. */
  depth: number | null;
  /** Distinct crawled pages linking here (exact). */
  inlinks: number;
  /** Distinct URLs this page links to (exact; 0 for non-HTML and redirects). */
  outlinks: number;
  title: string | null;
  content_type: string | null;
  bytes: number;
  response_ms: number;
  /** An HTML page answering 2xx with no noindex (meta robots or X-Robots-Tag). */
  indexable: boolean;
  /** The page's rel=canonical target, absolute; null when none. */
  canonical: string | null;
  /** Where a redirecting URL leads in the end; null otherwise. */
  redirect_to: string | null;
}

/** One URL a finding names; `position` orders them (shallowest first, then as the analyzer listed them). */
export interface FindingUrlFact {
  finding_id: string;
  position: number;
  url: string;
  depth: number | null;
  /** How many crawled pages link to it; null where that does not apply (a header, a DNS record). */
  referrers: number | null;
}

/** Everything an audit run stores beside its JSON; replaced as a whole by the attempt that completes. */
export interface CrawlFacts {
  pages: PageFact[];
  findingUrls: FindingUrlFact[];
}
