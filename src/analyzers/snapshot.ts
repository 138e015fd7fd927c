import type { RenderedFacts } from './rendered-facts';

/**
 * The input of the analyzers: everything the crawl (and later the TLS/DNS providers) observed about a
 * site, as plain data. Analyzers are pure functions of it, so they can be unit-tested with crafted
 * snapshots and re-run on a stored snapshot without touching the network.
 */

/** Response headers with lower-cased names. Repeated headers are kept as an array, in order. */
export type HeaderMap = Readonly<Record<string, string | readonly string[]>>;

export interface RedirectHop {
  /** URL that answered with a redirect. */
  readonly url: string;
  readonly status: number;
  /** Location header as sent (may be relative); null when missing. */
  readonly location: string | null;
}

export interface SnapshotPage {
  /** URL as discovered and requested. */
  readonly url: string;
  /** URL after following redirects; the page's content and headers belong to it. */
  readonly finalUrl: string;
  /** Status of the final response. */
  readonly status: number;
  /** Headers of the final response. */
  readonly headers: HeaderMap;
  /**
   * Decoded text of the final response (HTML pages); null when it was not text or not kept.
   * The crawler must send `Accept-Encoding: br, gzip` so PERF_COMPRESSION_MISSING is meaningful.
   */
  readonly body: string | null;
  readonly ttfbMs: number;
  /** Bytes of the body as transferred (compressed size when content-encoded). */
  readonly bytes: number;
  /** Clicks from the home page (0) by the shortest path of links; null: reached only from a sitemap. */
  readonly depth: number | null;
  /** Hops before finalUrl, in order; empty when the first response was final. */
  readonly redirectChain: readonly RedirectHop[];
  /** Pages whose links led the crawl here (may be capped); evidence of SEO_BROKEN_LINK. */
  readonly foundOn?: readonly string[];
  /** How many distinct crawled pages link here: exact, where foundOn may be capped. */
  readonly linkedFrom?: number;
  /** Distinct URLs this page links to (a same-site HTML page answering 2xx). */
  readonly outlinks?: number;
  /** What rendering it in the browser showed (absent: not rendered) (SEO_CONTENT_NEEDS_JS). */
  readonly rendered?: RenderedFacts;
}

/** A subresource fetched for checks on it (scripts, styles); optional until the crawler records them. */
export interface SnapshotResource {
  readonly url: string;
  readonly status: number;
  readonly headers: HeaderMap;
  readonly bytes: number;
  /** What referenced it (PERF_CACHE_WEAK); inferred from Content-Type or extension when absent. */
  readonly kind?: 'script' | 'stylesheet' | 'image' | 'font' | 'other';
  /** Pages that reference it (PERF_PAGE_WEIGHT_HIGH adds it to their weight; may be capped). */
  readonly foundOn?: readonly string[];
  /** How many distinct crawled pages reference it: exact, where foundOn may be capped. */
  readonly linkedFrom?: number;
}

export type RobotsFetch =
  | { readonly kind: 'fetched'; readonly url: string; readonly status: number; readonly body: string }
  | { readonly kind: 'unreachable'; readonly url: string; readonly error: string };

/**
 * Facts from a provider that may fail independently of the crawl. Absent on the snapshot: nobody
 * asked, so the analyzers that need it are not_applicable. `ok: false`: it was asked and could not
 * answer, so they are `error`.
 */
export type ProviderFacts<T> =
  { readonly ok: true; readonly facts: T } | { readonly ok: false; readonly error: string };

/** Result of requesting the http:// origin (SEC_HTTP_NOT_REDIRECTED). */
export interface HttpsRedirectFacts {
  readonly httpUrl: string;
  /** Every hop, starting with httpUrl. */
  readonly chain: readonly RedirectHop[];
  readonly finalUrl: string | null;
  /** The first redirect goes to https:// on the same host. */
  readonly sameHostHttpsFirst: boolean;
}

/** TLS probe of the origin's host on port 443 (SEC_HTTPS_UNAVAILABLE, SEC_TLS_*). */
export interface TlsFacts {
  /** A TLS handshake on 443 completed (whether or not the certificate is trusted). */
  readonly httpsAvailable: boolean;
  readonly protocols?: readonly string[];
  /**
   * Separate handshakes limited to legacy versions (SEC_TLS_LEGACY_PROTOCOL): the versions tried
   * (e.g. TLSv1, TLSv1.1) and those the server accepted. Absent: not probed.
   */
  readonly legacyProtocols?: { readonly tried: readonly string[]; readonly accepted: readonly string[] };
  readonly certificate?: {
    readonly trusted: boolean;
    readonly hostnameMatches: boolean;
    readonly validFrom: string;
    readonly validTo: string;
    readonly issuer: string;
    readonly keyType: string;
    readonly keyBits: number;
    readonly error?: string;
  };
}

/** A resolver's answer to the DS query of the registrable domain (src/crawl/dnssec.ts). */
export interface DnssecAnswer {
  /** The resolver asked, as configured (`1.2.3.4`, `[::1]:5353`). */
  readonly resolver: string;
  readonly rcode: 'NOERROR' | 'NXDOMAIN';
  /** The resolver validated the answer (AD flag). */
  readonly ad: boolean;
  /** DS records of the domain at its parent, `keyTag algorithm digestType DIGEST`. */
  readonly ds: readonly string[];
}

/** DNS facts of the registrable domain and the host (DNS_*, EMAIL_*). */
export interface DnsFacts {
  readonly aaaa: readonly string[];
  readonly caa: readonly string[];
  /** The parent publishes a DS record for the domain; null: not measured (snapshots before the DS query). */
  readonly dnssec: boolean | null;
  readonly mx: readonly { readonly exchange: string; readonly priority: number }[];
  readonly spf: readonly string[];
  readonly dmarc: readonly string[];
  /** Host name whose A/AAAA were resolved (evidence). */
  readonly host?: string;
  /** Registrable domain whose MX, SPF and _dmarc were resolved (evidence). */
  readonly domain?: string;
  /** A records of the host. */
  readonly a?: readonly string[];
  /** Name (host or an ancestor) where the CAA records in `caa` were found. */
  readonly caaName?: string;
  /** The DS answer `dnssec` was read from (evidence). */
  readonly dnssecAnswer?: DnssecAnswer;
}

/** A GET of /.well-known/security.txt (SEC_SECURITY_TXT_MISSING), after redirects. */
export type SecurityTxtFetch =
  | {
      readonly kind: 'fetched';
      readonly url: string;
      readonly status: number;
      readonly headers: HeaderMap;
      readonly body: string;
    }
  | { readonly kind: 'unreachable'; readonly url: string; readonly error: string };

/** A request to the home page carrying a foreign Origin header (SEC_CORS_CREDENTIALED_ANY). */
export interface CorsProbeFacts {
  readonly url: string;
  /** The Origin header sent, e.g. https://cors-probe.invalid */
  readonly originSent: string;
  readonly status: number;
  readonly headers: HeaderMap;
}

export interface CrawlSnapshot {
  /** Normalized origin the audit was asked for, e.g. https://example.com */
  readonly origin: string;
  readonly robots: RobotsFetch;
  /** Crawled documents, home page first. */
  readonly pages: readonly SnapshotPage[];
  /** Distinct same-site URLs the crawl saw, crawled or not (absent: the crawled pages). */
  readonly pagesDiscovered?: number;
  /** The page budget left crawlable URLs uncrawled. */
  readonly budgetExhausted?: boolean;
  readonly resources?: readonly SnapshotResource[];
  readonly httpsRedirect?: ProviderFacts<HttpsRedirectFacts>;
  readonly tls?: ProviderFacts<TlsFacts>;
  readonly dns?: ProviderFacts<DnsFacts>;
  /** When the crawl and probes ran (ISO 8601): the "now" of date checks such as certificate expiry. Absent: analysis time. */
  readonly observedAt?: string;
  readonly securityTxt?: SecurityTxtFetch;
  readonly corsProbe?: ProviderFacts<CorsProbeFacts>;
  /** URLs the crawl discovered but did not fetch because robots.txt disallows them (SEO_ROBOTS_BLOCKED). */
  readonly robotsDisallowed?: readonly DisallowedUrl[];
  /** Every sitemap requested (robots.txt Sitemap: lines, /sitemap.xml, index children) (SEO_SITEMAP_INVALID). */
  readonly sitemaps?: readonly SitemapFetch[];
  /** `/index.html` URLs linked on the site whose directory URL was crawled: not crawled again (SEO_CANONICAL_INVALID). */
  readonly indexAliases?: readonly IndexAlias[];
  /** Text of the site's own stylesheets that pages link (hidden and sized elements, page-css.ts). */
  readonly stylesheets?: readonly SiteStylesheet[];
  /** Status checks of link and resource targets that were not crawled as pages (SEO_BROKEN_LINK). */
  readonly linkChecks?: readonly LinkCheck[];
  /** GET /llms.txt (SEO_LLMS_TXT). */
  readonly llmsTxt?: LlmsTxtFetch;
  /** GET of a random path that cannot exist, e.g. /da-404-check-<random> (BP_SOFT_404). */
  readonly notFoundProbe?: NotFoundProbe;
}

/** A URL found by the crawl that robots.txt kept it from fetching. */
export interface DisallowedUrl {
  readonly url: string;
  /** Link depth it was found at (1: linked from the home page); null: reached only from a sitemap. */
  readonly depth: number | null;
  /** Listed in a sitemap. */
  readonly inSitemap?: boolean;
  /** Pages linking to it (may be capped). */
  readonly foundOn?: readonly string[];
  /** How many distinct crawled pages link to it: exact, where foundOn may be capped. */
  readonly linkedFrom?: number;
}

/** One sitemap request; the crawler parses it and records what the analyzers need (not the body). */
export interface SitemapFetch {
  readonly url: string;
  /** How it was found: a robots.txt Sitemap: line, the default /sitemap.xml, or a sitemap index. */
  readonly source: 'robots' | 'default' | 'index';
  /** Status after redirects; null when unreachable (see error). */
  readonly status: number | null;
  readonly error?: string;
  /** Root element of a well-formed document ('urlset', 'sitemapindex', or another name); null when not parsed. */
  readonly root?: string | null;
  /** XML well-formedness error, when the body did not parse. */
  readonly xmlError?: string;
  /** Number of <loc> entries (exact even when `locs` is capped). */
  readonly locCount?: number;
  /** Uncompressed size of the body in bytes. */
  readonly bytes?: number;
  /** The <loc> URLs (may be capped by the crawler). */
  readonly locs?: readonly string[];
}

/** A link or resource target requested only to learn its status. */
export interface LinkCheck {
  readonly url: string;
  /** Final status after redirects; null when unreachable. */
  readonly status: number | null;
  /** Pages that link to or embed it (may be capped). */
  readonly foundOn: readonly string[];
  /** How many distinct crawled pages link to or embed it: exact, where foundOn may be capped. */
  readonly linkedFrom?: number;
  readonly kind?: 'page' | 'resource';
}

export type LlmsTxtFetch =
  | {
      readonly kind: 'fetched';
      readonly url: string;
      readonly status: number;
      readonly contentType?: string;
      /** First KiB of the body. */ readonly bodyStart?: string;
    }
  | { readonly kind: 'unreachable'; readonly url: string; readonly error: string };

export type NotFoundProbe =
  | {
      readonly kind: 'fetched';
      readonly url: string;
      readonly finalUrl: string;
      /** Status after redirects. */
      readonly status: number;
      readonly redirectChain?: readonly RedirectHop[];
      readonly contentType?: string;
      /** Decoded body (may be truncated by the crawler). */
      readonly body: string | null;
    }
  | { readonly kind: 'unreachable'; readonly url: string; readonly error: string };

/** One header as a single string (repeats joined with ", " as HTTP allows); undefined if absent. */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v.join(', ');
}

/** Every field value of a header, in order (e.g. several Set-Cookie or CSP headers). */
export function headerValues(headers: HeaderMap, name: string): readonly string[] {
  const v = headers[name];
  if (v === undefined) return [];
  return typeof v === 'string' ? [v] : v;
}

/** Media type of a response without parameters, lower-cased; '' when absent. */
export function mediaType(headers: HeaderMap): string {
  const ct = headerValue(headers, 'content-type');
  if (!ct) return '';
  const semi = ct.indexOf(';');
  return (semi === -1 ? ct : ct.slice(0, semi)).trim().toLowerCase();
}

/** A second URL of a crawled page: `/dir/index.html` for `/dir/` (or the reverse, whichever came second). */
export interface IndexAlias {
  readonly url: string;
  /** The crawled URL it is an alias of. */
  readonly aliasOf: string;
  /** The first pages linking to it (CRAWL_LIMITS.foundOnCap), and how many in all. */
  readonly foundOn: readonly string[];
  readonly linkedFrom?: number;
}

/** A same-site stylesheet as fetched by the crawl (decoded, capped at CRAWL_LIMITS.stylesheetMaxChars). */
export interface SiteStylesheet {
  readonly url: string;
  readonly text: string;
}
