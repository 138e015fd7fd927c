/**
 * Bounds of one crawl's requests (docs/analyzers.md, Crawl rules). How many pages it takes is the
 * tier's page budget; every distinct link target and resource is checked (external ones up to
 * EXTERNAL_CHECK_BUDGET).
 */
export const CRAWL_LIMITS = {
  requestTimeoutMs: 10_000,
  robotsMaxBytes: 500 * 1024,
  pageMaxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  /** Requests in flight per host of the audited site (without a Crawl-delay; with one: 1). */
  concurrencyPerHost: 4,
  /** Requests in flight per host of another site (external link and resource checks). */
  externalConcurrencyPerHost: 2,
  crawlDelayCapMs: 10_000,
  retryAfterCapMs: 10_000,
  /** Tries per URL when it answers 429/503. */
  maxTries: 3,
  resourceMaxBytes: 256 * 1024,
  /** Decoded text kept of each same-site stylesheet (for hidden and sized elements). */
  stylesheetMaxChars: 1024 * 1024,
  /** An index and the 21 files of 50,000 URLs that list an enterprise budget of 1,000,000 pages, with room. */
  maxSitemapFetches: 25,
  sitemapMaxBytes: 10 * 1024 * 1024,
  /** <loc> URLs kept per sitemap: the sitemaps.org limit of one file (locCount stays exact). */
  maxLocsKept: 50_000,
  foundOnCap: 10,
  smallBodyBytes: 64 * 1024,
  maxDisallowedRecorded: 500,
} as const;
