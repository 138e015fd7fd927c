/** Bounds of one crawl (docs/analyzers.md, Crawl rules). */
export const CRAWL_LIMITS = {
  requestTimeoutMs: 10_000,
  robotsMaxBytes: 500 * 1024,
  pageMaxBytes: 5 * 1024 * 1024,
  maxDepth: 5,
  maxRedirects: 5,
  /** Requests in flight per host without / with a Crawl-delay. */
  concurrencyPerHost: 4,
  crawlDelayCapMs: 10_000,
  retryAfterCapMs: 10_000,
  /** Tries per URL when it answers 429/503. */
  maxTries: 3,
  maxResources: 100,
  resourceMaxBytes: 256 * 1024,
  /** Decoded text kept of each same-site stylesheet (for hidden and sized elements). */
  stylesheetMaxChars: 1024 * 1024,
  maxLinkChecks: 100,
  maxSitemapFetches: 20,
  sitemapMaxBytes: 10 * 1024 * 1024,
  /** <loc> URLs kept per sitemap (locCount stays exact). */
  maxLocsKept: 5_000,
  foundOnCap: 10,
  smallBodyBytes: 64 * 1024,
  maxDisallowedRecorded: 500,
} as const;
