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
  /** Link depth from the home page (0). */
  readonly depth: number;
  /** Hops before finalUrl, in order; empty when the first response was final. */
  readonly redirectChain: readonly RedirectHop[];
}

/** A subresource fetched for checks on it (scripts, styles); optional until the crawler records them. */
export interface SnapshotResource {
  readonly url: string;
  readonly status: number;
  readonly headers: HeaderMap;
  readonly bytes: number;
}

export type RobotsFetch =
  | { readonly kind: 'fetched'; readonly url: string; readonly status: number; readonly body: string }
  | { readonly kind: 'unreachable'; readonly url: string; readonly error: string };

/**
 * Facts from a provider that may fail independently of the crawl. Absent on the snapshot: nobody
 * asked, so the analyzers that need it are not_applicable. `ok: false`: it was asked and could not
 * answer, so they are `error`.
 */
export type ProviderFacts<T> = { readonly ok: true; readonly facts: T } | { readonly ok: false; readonly error: string };

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

/** DNS facts of the registrable domain and the host (DNS_*, EMAIL_*). */
export interface DnsFacts {
  readonly aaaa: readonly string[];
  readonly caa: readonly string[];
  readonly dnssec: boolean | null;
  readonly mx: readonly { readonly exchange: string; readonly priority: number }[];
  readonly spf: readonly string[];
  readonly dmarc: readonly string[];
}

export interface CrawlSnapshot {
  /** Normalized origin the audit was asked for, e.g. https://example.com */
  readonly origin: string;
  readonly robots: RobotsFetch;
  /** Crawled documents, home page first. */
  readonly pages: readonly SnapshotPage[];
  readonly resources?: readonly SnapshotResource[];
  readonly httpsRedirect?: ProviderFacts<HttpsRedirectFacts>;
  readonly tls?: ProviderFacts<TlsFacts>;
  readonly dns?: ProviderFacts<DnsFacts>;
}

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
