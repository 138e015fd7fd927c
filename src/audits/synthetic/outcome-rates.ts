import type { HtmlAnalyzerCode } from '../../analyzers/browser-analyzers';

/**
 * How often real sites fail (and warn on) each check, roughly as public crawl statistics report it;
 * `page` checks affect a share of pages, `site` checks the site as a whole; `na` is the chance the
 * check does not apply (no cookies, no JSON-LD, one language only…).
 */
export interface OutcomeRates {
  kind: 'site' | 'page';
  fail: number;
  warn?: number;
  na?: number;
  /** Usually site-wide when it fails (headers, layout): most failures affect every page. */
  sitewide?: boolean;
}

/** The HTML analyzers only: the browser stage's come from a synthetic stage result (browser.ts). */
export const OUTCOME_RATES: Readonly<Record<HtmlAnalyzerCode, OutcomeRates>> = {
  SEC_HTTPS_UNAVAILABLE: { kind: 'site', fail: 0 }, // decided from the origin's scheme (outcomes.ts)
  SEC_HTTP_NOT_REDIRECTED: { kind: 'site', fail: 0.08 },
  SEC_TLS_CERT_INVALID: { kind: 'site', fail: 0.015 },
  SEC_TLS_CERT_EXPIRING: { kind: 'site', fail: 0.05 },
  SEC_TLS_LEGACY_PROTOCOL: { kind: 'site', fail: 0.18 },
  SEC_TLS_WEAK_KEY: { kind: 'site', fail: 0.03 },
  SEC_HSTS_MISSING: { kind: 'page', fail: 0.4, sitewide: true },
  SEC_HSTS_WEAK: { kind: 'page', fail: 0.12, warn: 0.18, sitewide: true },
  SEC_CSP_MISSING: { kind: 'page', fail: 0.55, sitewide: true },
  SEC_CSP_UNSAFE: { kind: 'page', fail: 0.5, sitewide: true },
  SEC_CLICKJACKING: { kind: 'page', fail: 0.4, sitewide: true },
  SEC_XCTO_MISSING: { kind: 'page', fail: 0.38, sitewide: true },
  SEC_REFERRER_POLICY_UNSAFE: { kind: 'page', fail: 0.08, sitewide: true },
  SEC_COOKIE_INSECURE: { kind: 'site', fail: 0.25, na: 0.3 },
  SEC_CORS_CREDENTIALED_ANY: { kind: 'site', fail: 0.03, na: 0.5 },
  SEC_SRI_MISSING: { kind: 'page', fail: 0.42, na: 0.2, sitewide: true },
  SEC_MIXED_CONTENT: { kind: 'page', fail: 0.07 },
  SEC_VERSION_DISCLOSURE: { kind: 'page', fail: 0.33, sitewide: true },
  SEC_SECURITY_TXT_MISSING: { kind: 'site', fail: 0.8 },
  DNS_DNSSEC_MISSING: { kind: 'site', fail: 0.72 },
  DNS_CAA_MISSING: { kind: 'site', fail: 0.6 },
  DNS_IPV6_MISSING: { kind: 'site', fail: 0.45 },
  EMAIL_SPF_MISSING: { kind: 'site', fail: 0.1 },
  EMAIL_SPF_WEAK: { kind: 'site', fail: 0.18 },
  EMAIL_DMARC_MISSING: { kind: 'site', fail: 0.28 },
  EMAIL_DMARC_WEAK: { kind: 'site', fail: 0.35 },
  EMAIL_NO_MAIL_HYGIENE: { kind: 'site', fail: 0.6 },
  SEO_HTTP_STATUS_ERROR: { kind: 'page', fail: 0.2 },
  SEO_NOINDEX: { kind: 'page', fail: 0.012, warn: 0.1 },
  SEO_ROBOTS_BLOCKED: { kind: 'site', fail: 0.012 },
  SEO_ROBOTS_TXT_INVALID: { kind: 'site', fail: 0.07 },
  SEO_SITEMAP_INVALID: { kind: 'site', fail: 0.3 },
  SEO_TITLE_MISSING: { kind: 'page', fail: 0.05 },
  SEO_TITLE_DUPLICATE: { kind: 'page', fail: 0.15, warn: 0.3 },
  SEO_META_DESC_MISSING: { kind: 'page', fail: 0.38 },
  SEO_H1_MISSING: { kind: 'page', fail: 0.3, warn: 0.15 },
  SEO_CANONICAL_INVALID: { kind: 'page', fail: 0.15 },
  SEO_HREFLANG_INVALID: { kind: 'page', fail: 0.3, na: 0.75 },
  SEO_BROKEN_LINK: { kind: 'page', fail: 0.3 },
  SEO_REDIRECT_CHAIN: { kind: 'page', fail: 0.15 },
  SEO_INTERNAL_REDIRECT_LINK: { kind: 'page', fail: 0.35 },
  SEO_ORPHAN_PAGE: { kind: 'page', fail: 0.25 },
  SEO_DEEP_PAGE: { kind: 'page', fail: 0.2 },
  SEO_FEW_INLINKS: { kind: 'page', fail: 0.4 },
  SEO_DUPLICATE_CONTENT: { kind: 'page', fail: 0.3 },
  // Judged only on rendered pages: most sites have no application shell.
  SEO_CONTENT_NEEDS_JS: { kind: 'page', fail: 0.6, na: 0.9 },
  SEO_LINK_TEXT_GENERIC: { kind: 'page', fail: 0.35 },
  SEO_ANCHOR_NOT_CRAWLABLE: { kind: 'page', fail: 0.2 },
  SEO_STRUCTURED_DATA_INVALID: { kind: 'page', fail: 0.12, na: 0.5 },
  SEO_LLMS_TXT: { kind: 'site', fail: 0.9 },
  PERF_TTFB_SLOW: { kind: 'page', fail: 0.12, warn: 0.15 },
  PERF_COMPRESSION_MISSING: { kind: 'page', fail: 0.07, sitewide: true },
  PERF_CACHE_WEAK: { kind: 'site', fail: 0.45 },
  PERF_PAGE_WEIGHT_HIGH: { kind: 'page', fail: 0.18, warn: 0.25 },
  PERF_RENDER_BLOCKING: { kind: 'page', fail: 0.45, sitewide: true },
  PERF_IMG_UNSIZED: { kind: 'page', fail: 0.55 },
  A11Y_IMG_ALT_MISSING: { kind: 'page', fail: 0.4 },
  A11Y_LANG_INVALID: { kind: 'page', fail: 0.1, sitewide: true },
  A11Y_FORM_LABEL_MISSING: { kind: 'page', fail: 0.3, na: 0.2 },
  A11Y_CONTROL_NAME_MISSING: { kind: 'page', fail: 0.45, sitewide: true },
  A11Y_ZOOM_DISABLED: { kind: 'page', fail: 0.08, na: 0.05, sitewide: true },
  A11Y_DUPLICATE_ID_ARIA: { kind: 'page', fail: 0.1 },
  A11Y_ARIA_INVALID: { kind: 'page', fail: 0.25, sitewide: true },
  A11Y_HEADING_ORDER: { kind: 'page', fail: 0.45 },
  BP_DOCTYPE_CHARSET: { kind: 'page', fail: 0.05, sitewide: true },
  BP_VIEWPORT_MISSING: { kind: 'page', fail: 0.05, sitewide: true },
  BP_SOFT_404: { kind: 'site', fail: 0.25 },
};
