import type { CidrList } from '../outbound/policy';
import { negativeCachingLookup, type LookupAllFn } from '../outbound/resolve';
import { registrableDomain, siteOfUrl } from '../registrable-domain';
import type { Aborter } from './abort';
import { HostLimits, type HostConcurrency } from './host-limits';

/** What the crawl reports as it goes: its phase, pages answered so far, same-site URLs seen. */
export interface CrawlProgress {
  phase: 'crawling' | 'checking';
  pagesCrawled: number;
  pagesDiscovered: number;
}

export interface CrawlSiteInput {
  /** Normalized origin (normalizeDomain().origin), e.g. https://example.com */
  origin: string;
  pageBudget: number;
  /** Distinct external link targets and subresources checked at most (EXTERNAL_CHECK_BUDGET). */
  externalCheckBudget?: number;
  allow: CidrList;
  userAgent: string;
  onProgress?: (p: CrawlProgress) => void;
  signal?: AbortSignal;
  /** Collect DNS facts of the host and its registrable domain (default true; skipped for IP literals). */
  lookupDns?: boolean;
  /** Replaces the system's resolvers for the DNS facts and the DS query (tests): addresses as dns.setServers takes them, and the wait per query (default 5 s). */
  dnsResolver?: { servers: readonly string[]; timeoutMs?: number };
  /** Probe TLS of https origins (default true). */
  probeTls?: boolean;
  /** Replaces the system resolver (tests); failed names are remembered either way. */
  lookup?: LookupAllFn;
  /** Per-host limits of this process (a step's share of the audit's); default CRAWL_LIMITS'. */
  hostConcurrency?: HostConcurrency;
}

/** What every part of one crawl shares: the input, the audited origin and the per-host limits. */
export interface CrawlContext {
  readonly input: CrawlSiteInput;
  readonly aborter: Aborter;
  readonly originUrl: URL;
  /** e.g. https://example.com */
  readonly origin: string;
  /** `${origin}/` */
  readonly homeUrl: string;
  /** Registrable domain of the origin: URLs within it belong to the audited site. */
  readonly site: string;
  readonly hostLimits: HostLimits;
  /** Every request of this crawl resolves through it: a name that failed once is not looked up again. */
  readonly lookup: LookupAllFn;
}

export function createCrawlContext(input: CrawlSiteInput, aborter: Aborter): CrawlContext {
  const originUrl = new URL(input.origin);
  const site = registrableDomain(originUrl.hostname);
  return {
    input,
    aborter,
    originUrl,
    origin: originUrl.origin,
    homeUrl: `${originUrl.origin}/`,
    site,
    hostLimits: new HostLimits((url) => siteOfUrl(url.href) === site, input.hostConcurrency),
    lookup: negativeCachingLookup(input.lookup),
  };
}

export function isSameSite(context: CrawlContext, url: string): boolean {
  return siteOfUrl(url) === context.site;
}
