import type { AuditPage } from '../schemas/api-pages';

/**
 * What a live audit keeps about its crawl beyond the audit JSON (docs/decisions.md, "Whole-site
 * audits"): one row per URL the crawl requested, and every URL of every finding. The JSON holds the
 * first 100 of each; the pages and finding-URL endpoints and the CSV exports page through these.
 */

/** One requested URL of the crawl (a page, a redirect, or an error answer): a row of the pages listing. */
export type PageFact = AuditPage;

/** One URL a finding names; `position` orders them (shallowest first, then as the analyzer listed them). */
export interface FindingUrlFact {
  finding_id: string;
  position: number;
  url: string;
  depth: number | null;
  /** How many crawled pages link to it; null where that does not apply (a header, a DNS record). */
  referrers: number | null;
}

/**
 * Everything an audit run stores beside its JSON; replaced as a whole by the attempt that completes.
 * Both lists are iterables that can be gone over again (a write retried after a database outage):
 * a large site's finding URLs are made a finding at a time as they are written, never all at once.
 */
export interface CrawlFacts {
  pages: Iterable<PageFact>;
  findingUrls: Iterable<FindingUrlFact>;
}
