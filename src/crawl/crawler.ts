/**
 * The full live crawl (docs/analyzers.md, Crawl rules): robots.txt, sitemaps, a breadth-first crawl of
 * the site within its page budget, the subresources and link targets the analyzers check, and the
 * side probes (llms.txt, security.txt, a not-found probe, CORS, http→https, TLS, DNS).
 *
 * Every request goes through the SSRF-safe outbound client (followRedirects / outboundRequest).
 * Failures of the crawl itself are AuditFailure codes; provider failures (TLS, DNS, the http://
 * probe) are recorded in the snapshot as `{ ok: false, error }` for the caller to judge.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { Parser } from 'htmlparser2';
import type {
  CrawlSnapshot,
  DisallowedUrl,
  DnsFacts,
  HeaderMap,
  HttpsRedirectFacts,
  LinkCheck,
  LlmsTxtFetch,
  NotFoundProbe,
  ProviderFacts,
  RedirectHop,
  RobotsFetch,
  SecurityTxtFetch,
  SitemapFetch,
  SnapshotPage,
  SnapshotResource,
  TlsFacts,
  CorsProbeFacts,
} from '../analyzers/snapshot';
import { collectDnsFacts } from '../analyzers/dns-facts';
import { collectTlsFacts } from '../analyzers/tls-facts';
import { AuditFailure } from '../audits/failures';
import { registrableDomain, siteOfUrl } from '../registrable-domain';
import { followRedirects, type FollowRedirectsResult, type OutboundRequestOptions } from '../outbound/client';
import { classifyOutboundError, OutboundError, RedirectError, type RedirectHop as OutboundHop } from '../outbound/errors';
import type { CidrList } from '../outbound/policy';
import { resolveAllowed } from '../outbound/resolve';
import { decodeBodyText } from './decode';
import { robotsRules, type RobotsRules } from './robots';

// ── limits ──────────────────────────────────────────────────────────────────────────────────────
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
  maxLinkChecks: 100,
  maxSitemapFetches: 20,
  sitemapMaxBytes: 10 * 1024 * 1024,
  /** <loc> URLs kept per sitemap (locCount stays exact). */
  maxLocsKept: 5_000,
  foundOnCap: 10,
  smallBodyBytes: 64 * 1024,
  maxDisallowedRecorded: 500,
} as const;

const CORS_PROBE_ORIGIN = 'https://audit-cors-probe.invalid';
const ACCEPT_ENCODING = 'br, gzip';
/** Linked URLs that are certainly not HTML documents: link-checked instead of crawled. */
const NON_DOCUMENT_EXT = /\.(?:pdf|zip|gz|tgz|rar|7z|tar|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4a|m4v|mov|avi|webm|ogg|wav|flac|woff2?|ttf|otf|eot|css|js|mjs|json|xml|rss|atom|txt|csv|docx?|xlsx?|pptx?|exe|dmg|apk|iso)$/i;

export interface CrawlProgress {
  pagesCrawled: number;
  queued: number;
}

export interface CrawlSiteInput {
  /** Normalized origin (normalizeDomain().origin), e.g. https://example.com */
  origin: string;
  pageBudget: number;
  allow: CidrList;
  userAgent: string;
  onProgress?: (p: CrawlProgress) => void;
  signal?: AbortSignal;
  /** Collect DNS facts of the host and its registrable domain (default true; skipped for IP literals). */
  lookupDns?: boolean;
  /** Probe TLS of https origins (default true). */
  probeTls?: boolean;
}

// ── small helpers ───────────────────────────────────────────────────────────────────────────────

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('crawl aborted');
  err.name = 'AbortError';
  return err;
}

class Aborter {
  private readonly aborted: Promise<never>;
  constructor(readonly signal: AbortSignal | undefined) {
    this.aborted = new Promise<never>((_, reject) => {
      if (!signal) return;
      if (signal.aborted) reject(abortError(signal));
      else signal.addEventListener('abort', () => reject(abortError(signal)), { once: true });
    });
    this.aborted.catch(() => undefined);
  }
  check(): void {
    if (this.signal?.aborted) throw abortError(this.signal);
  }
  race<T>(p: Promise<T>): Promise<T> {
    if (!this.signal) return p;
    return Promise.race([p, this.aborted]);
  }
  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    return this.race(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))).finally(() => clearTimeout(timer));
  }
}

/** Per-host limiter: at most `concurrency` in flight, request starts spaced by `intervalMs`. */
class HostLimiter {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  private nextStart = 0;
  constructor(
    private readonly concurrency: number,
    private readonly intervalMs: number,
  ) {}
  async run<T>(aborter: Aborter, fn: () => Promise<T>): Promise<T> {
    aborter.check();
    if (this.active >= this.concurrency) await aborter.race(new Promise<void>((resolve) => this.waiters.push(resolve)));
    this.active++;
    try {
      if (this.intervalMs > 0) {
        const now = Date.now();
        const at = Math.max(now, this.nextStart);
        this.nextStart = at + this.intervalMs;
        await aborter.sleep(at - now);
      }
      aborter.check();
      return await aborter.race(fn());
    } finally {
      this.active--;
      this.waiters.shift()?.();
    }
  }
}

/** Retry-After as milliseconds (delta-seconds or HTTP-date), capped; fallback when absent/invalid. */
export function retryAfterMs(value: string | string[] | undefined, fallbackMs: number, nowMs = Date.now()): number {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  let ms = fallbackMs;
  if (v) {
    if (/^\d+$/.test(v)) ms = Number(v) * 1000;
    else {
      const t = Date.parse(v);
      if (Number.isFinite(t)) ms = t - nowMs;
    }
  }
  return Math.min(CRAWL_LIMITS.retryAfterCapMs, Math.max(0, ms));
}

function toHops(chain: readonly OutboundHop[]): RedirectHop[] {
  return chain.map((h) => ({ url: h.url, status: h.status, location: h.location ?? null }));
}

function errorText(err: unknown): string {
  const kind = classifyOutboundError(err);
  const msg = err instanceof Error ? err.message : String(err);
  return kind === 'other' ? msg : `${kind}: ${msg}`;
}

/** Absolute http(s) URL without fragment, or null. */
function resolveUrl(raw: string | undefined, base: string): string | null {
  if (raw === undefined) return null;
  const t = raw.trim();
  if (t === '' || /^(?:javascript|mailto|tel|data|blob|about):/i.test(t)) return null;
  try {
    const u = new URL(t, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    if (u.username || u.password) return null;
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
}

function isHtmlResponse(headers: HeaderMap, body: string | null): boolean {
  const ct = headers['content-type'];
  const type = (Array.isArray(ct) ? ct[0] : (ct as string | undefined))?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'text/html' || type === 'application/xhtml+xml') return true;
  return type === '' && body !== null && /^\s*</.test(body.slice(0, 512));
}

function isTextType(headers: HeaderMap): boolean {
  const ct = headers['content-type'];
  const type = (Array.isArray(ct) ? ct[0] : (ct as string | undefined))?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === '' || type.startsWith('text/') || /^application\/(?:[\w.+-]*\+)?(?:xml|json)$/.test(type) || type === 'application/xhtml+xml';
}

function contentTypeOf(headers: HeaderMap): string | undefined {
  const ct = headers['content-type'];
  return Array.isArray(ct) ? ct.join(', ') : (ct as string | undefined);
}

interface PageLinks {
  links: string[];
  resources: Array<{ url: string; kind: SnapshotResource['kind'] }>;
}

/** Links and subresources of an HTML page, with <base href> honoured. One streaming pass. */
export function extractLinks(html: string, pageUrl: string): PageLinks {
  let base = pageUrl;
  let baseSeen = false;
  const links: string[] = [];
  const resources: PageLinks['resources'] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        switch (name) {
          case 'base':
            if (!baseSeen && attribs.href !== undefined) {
              baseSeen = true;
              base = resolveUrl(attribs.href, pageUrl) ?? pageUrl;
            }
            break;
          case 'a':
          case 'area': {
            const u = resolveUrl(attribs.href, base);
            if (u) links.push(u);
            break;
          }
          case 'script': {
            const u = resolveUrl(attribs.src, base);
            if (u) resources.push({ url: u, kind: 'script' });
            break;
          }
          case 'link': {
            const rel = (attribs.rel ?? '').toLowerCase().split(/\s+/);
            if (rel.includes('stylesheet')) {
              const u = resolveUrl(attribs.href, base);
              if (u) resources.push({ url: u, kind: 'stylesheet' });
            }
            break;
          }
          case 'img': {
            const u = resolveUrl(attribs.src, base);
            if (u) resources.push({ url: u, kind: 'image' });
            break;
          }
          default:
            break;
        }
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
  );
  parser.end(html);
  return { links, resources };
}

interface ParsedSitemap {
  root: string | null;
  xmlError?: string;
  locCount: number;
  locs: string[];
}

/** Parses a sitemap (urlset or sitemapindex) with htmlparser2 in xmlMode, checking tag balance. */
export function parseSitemapXml(xml: string, maxLocs: number): ParsedSitemap {
  let root: string | null = null;
  let xmlError: string | undefined;
  const stack: string[] = [];
  let locCount = 0;
  const locs: string[] = [];
  let inLoc = false;
  let locText = '';
  let closedRoot = false;
  let textAfterRoot = false;
  const local = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();
  const parser = new Parser(
    {
      onopentag(name) {
        if (stack.length === 0) {
          if (root !== null || closedRoot) xmlError ??= `more than one root element (<${name}>)`;
          root ??= local(name);
        }
        stack.push(name);
        if (local(name) === 'loc') {
          inLoc = true;
          locText = '';
        }
      },
      ontext(text) {
        if (inLoc) locText += text;
        else if (stack.length === 0 && text.trim() !== '') textAfterRoot = true;
      },
      onclosetag(name, isImplied) {
        if (isImplied) xmlError ??= `element <${name}> is not closed`;
        const top = stack.pop();
        if (top !== name) xmlError ??= `mismatched closing tag </${name}>`;
        if (local(name) === 'loc' && inLoc) {
          inLoc = false;
          locCount++;
          const loc = locText.trim();
          if (locs.length < maxLocs && loc !== '') locs.push(loc);
        }
        if (stack.length === 0) closedRoot = true;
      },
      onerror(err) {
        xmlError ??= err.message;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  if (root === null) xmlError ??= 'no root element';
  if (textAfterRoot) xmlError ??= 'text outside the root element';
  return { root, ...(xmlError !== undefined ? { xmlError } : {}), locCount, locs };
}

function capPush(list: string[], value: string, cap: number): void {
  if (list.length < cap && !list.includes(value)) list.push(value);
}

// ── the crawl ───────────────────────────────────────────────────────────────────────────────────

interface Fetched {
  result: FollowRedirectsResult;
  /** The final answer was 429 after every try. */
  rateLimited: boolean;
}

interface Discovered {
  url: string;
  depth: number;
  foundOn: string[];
}

export async function crawlSite(input: CrawlSiteInput): Promise<CrawlSnapshot> {
  const aborter = new Aborter(input.signal);
  aborter.check();
  const observedAt = new Date().toISOString();
  const originUrl = new URL(input.origin);
  const origin = originUrl.origin;
  const host = originUrl.hostname;
  const site = registrableDomain(host);
  const budget = Math.max(1, Math.floor(input.pageBudget));
  const L = CRAWL_LIMITS;

  const baseOptions = (url: string, maxBodyBytes: number, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): OutboundRequestOptions & { maxRedirects: number } => ({
    url,
    method,
    timeoutMs: L.requestTimeoutMs,
    maxBodyBytes,
    allow: input.allow,
    userAgent: input.userAgent,
    allowInvalidTls: true,
    maxRedirects: L.maxRedirects,
    headers: { 'accept-encoding': ACCEPT_ENCODING, ...headers },
  });

  // Limiters per host; the origin's is replaced once robots.txt says whether a Crawl-delay applies.
  const limiters = new Map<string, HostLimiter>();
  const limiterFor = (url: string): HostLimiter => {
    const h = new URL(url).host;
    let l = limiters.get(h);
    if (!l) {
      l = new HostLimiter(L.concurrencyPerHost, 0);
      limiters.set(h, l);
    }
    return l;
  };

  /** GET/HEAD with redirects, backing off on 429/503 (Retry-After, at most maxTries). Throws OutboundError. */
  const fetchWithBackoff = async (options: OutboundRequestOptions & { maxRedirects: number }): Promise<Fetched> => {
    for (let attempt = 1; ; attempt++) {
      const result = await limiterFor(options.url).run(aborter, () => followRedirects(options));
      const status = result.response.status;
      if ((status === 429 || status === 503) && attempt < L.maxTries) {
        await aborter.sleep(retryAfterMs(result.response.headers['retry-after'], 1_000 * attempt));
        continue;
      }
      return { result, rateLimited: status === 429 };
    }
  };

  // ── robots.txt ────────────────────────────────────────────────────────────────────────────────
  const robotsUrl = `${origin}/robots.txt`;
  let robots: RobotsFetch;
  let rules: RobotsRules;
  try {
    const { result, rateLimited } = await fetchWithBackoff(baseOptions(robotsUrl, L.robotsMaxBytes));
    const status = result.response.status;
    if (rateLimited) throw new AuditFailure('target_rate_limited', `${robotsUrl} kept answering 429 Too Many Requests`);
    if (status >= 500) throw new AuditFailure('domain_unreachable', `${robotsUrl} answered ${status}: the site cannot be crawled now`);
    const body = decodeBodyText(result.response, L.robotsMaxBytes);
    robots = { kind: 'fetched', url: robotsUrl, status, body: status >= 200 && status < 300 ? body : body.slice(0, L.smallBodyBytes) };
    rules = robotsRules(robotsUrl, status, body);
  } catch (err) {
    if (err instanceof AuditFailure) throw err;
    if (err instanceof RedirectError) {
      // RFC 9309 §2.3.1.2: after more than five redirects the file MAY be taken as unavailable (allow all).
      robots = { kind: 'unreachable', url: robotsUrl, error: err.message };
      rules = robotsRules(robotsUrl, 404, '');
    } else if (err instanceof OutboundError) {
      throw new AuditFailure('domain_unreachable', `could not fetch ${robotsUrl}: ${errorText(err)}`);
    } else throw err;
  }
  const crawlDelay = rules.crawlDelaySeconds();
  if (crawlDelay !== undefined && crawlDelay > 0) {
    limiters.set(originUrl.host, new HostLimiter(1, Math.min(L.crawlDelayCapMs, crawlDelay * 1000)));
  }
  const homeUrl = `${origin}/`;
  if (!rules.isAllowed(homeUrl)) throw new AuditFailure('robots_disallowed', `robots.txt disallows ${homeUrl} for our crawler`);

  // robots.txt of other hosts of the same site, fetched on first use (RFC 9309 is per origin).
  const otherRobots = new Map<string, Promise<RobotsRules>>();
  const rulesFor = async (url: string): Promise<RobotsRules> => {
    const o = new URL(url).origin;
    if (o === origin) return rules;
    let p = otherRobots.get(o);
    if (!p) {
      const u = `${o}/robots.txt`;
      p = fetchWithBackoff(baseOptions(u, L.robotsMaxBytes)).then(
        ({ result }) => {
          const s = result.response.status;
          if (s >= 500 || s === 429) return robotsRules(u, 200, 'User-agent: *\nDisallow: /\n'); // unreachable: complete disallow
          return robotsRules(u, s, decodeBodyText(result.response, L.robotsMaxBytes));
        },
        (err: unknown) => {
          if (err instanceof RedirectError) return robotsRules(u, 404, '');
          if (err instanceof OutboundError) return robotsRules(u, 200, 'User-agent: *\nDisallow: /\n');
          throw err;
        },
      );
      otherRobots.set(o, p);
    }
    return p;
  };

  // ── side probes, in parallel with the crawl; none of them rejects except on abort ─────────────
  // (The other probes start once the home page answered, so a failing site gets no extra traffic.)
  const sitemapsPromise = collectSitemaps();
  sitemapsPromise.catch(() => undefined);
  const startSideProbes = () => {
    const p = Promise.all([fetchLlmsTxt(), fetchSecurityTxt(), fetchNotFoundProbe(), corsProbe(), httpsRedirectProbe(), tlsProbe(), dnsProbe()]);
    p.catch(() => undefined);
    return p;
  };
  let sideProbes: ReturnType<typeof startSideProbes> | null = null;

  // ── breadth-first crawl, level by level (deterministic order) ─────────────────────────────────
  const pages: SnapshotPage[] = [];
  const seen = new Set<string>([homeUrl]);
  const disallowed = new Map<string, DisallowedUrl & { foundOn: string[] }>();
  const uncrawled = new Map<string, { foundOn: string[] }>(); // internal link targets not crawled
  const resourceRefs = new Map<string, { kind: SnapshotResource['kind']; foundOn: string[] }>();
  const pageIndex = new Map<string, Discovered>(); // url → discovery record for foundOn updates
  const pendingLinkChecks: LinkCheck[] = [];
  let pageRequests = 0;
  let rateLimitedCount = 0;

  let level: Discovered[] = [{ url: homeUrl, depth: 0, foundOn: [] }];
  pageIndex.set(homeUrl, level[0]!);
  while (level.length > 0 && pages.length < budget) {
    const take = level.slice(0, budget - pages.length);
    for (const d of level.slice(take.length)) uncrawled.set(d.url, { foundOn: d.foundOn });
    const results = new Array<{ page: SnapshotPage | null; links: PageLinks | null; error?: string }>(take.length);
    let next = 0;
    let done = 0;
    const before = pages.length;
    let halted = false;
    const worker = async () => {
      while (next < take.length && !halted) {
        const i = next++;
        try {
          results[i] = await crawlPage(take[i]!);
          pageRequests++;
        } catch (err) {
          halted = true; // the other workers finish their current request and take no more
          throw err;
        }
        if (results[i]!.page) done++;
        // Most requests keep answering 429: give up early rather than crawl the whole level slowly.
        if (pageRequests >= 6 && rateLimitedCount * 2 > pageRequests) {
          halted = true;
          throw new AuditFailure('target_rate_limited', `${rateLimitedCount} of ${pageRequests} page requests kept answering 429 Too Many Requests`);
        }
        input.onProgress?.({ pagesCrawled: before + done, queued: take.length - next + (level.length - take.length) });
      }
    };
    await Promise.all(Array.from({ length: Math.min(L.concurrencyPerHost, take.length) }, worker));

    const nextLevel: Discovered[] = [];
    for (let i = 0; i < take.length; i++) {
      const d = take[i]!;
      const r = results[i]!;
      if (!r.page) {
        if (d.depth === 0) throw new AuditFailure('domain_unreachable', `could not fetch the home page ${d.url}: ${r.error ?? 'unreachable'}`);
        addLinkCheckTarget(d.url, d.foundOn, null);
        continue;
      }
      pages.push({ ...r.page, ...(d.depth > 0 ? { foundOn: d.foundOn } : {}) });
      if (!r.links) continue;
      const from = r.page.finalUrl;
      for (const res of r.links.resources) {
        const ref = resourceRefs.get(res.url);
        if (ref) capPush(ref.foundOn, from, L.foundOnCap);
        else if (resourceRefs.size < L.maxResources * 4) resourceRefs.set(res.url, { kind: res.kind, foundOn: [from] });
      }
      for (const link of r.links.links) {
        if (!sameSite(link)) continue;
        const known = pageIndex.get(link);
        if (known) {
          if (known.url !== from) capPush(known.foundOn, from, L.foundOnCap);
          continue;
        }
        const dis = disallowed.get(link);
        if (dis) {
          capPush(dis.foundOn, from, L.foundOnCap);
          continue;
        }
        const unc = uncrawled.get(link);
        if (unc) {
          capPush(unc.foundOn, from, L.foundOnCap);
          continue;
        }
        if (seen.has(link)) continue; // a redirect target already crawled
        const depth = d.depth + 1;
        if (!(await rulesFor(link)).isAllowed(link)) {
          if (disallowed.size < L.maxDisallowedRecorded) disallowed.set(link, { url: link, depth, foundOn: [from] });
          continue;
        }
        if (depth > L.maxDepth || NON_DOCUMENT_EXT.test(new URL(link).pathname)) {
          uncrawled.set(link, { foundOn: [from] });
          continue;
        }
        const nd: Discovered = { url: link, depth, foundOn: [from] };
        pageIndex.set(link, nd);
        seen.add(link);
        nextLevel.push(nd);
      }
    }
    sideProbes ??= startSideProbes();
    if (pageRequests >= 3 && rateLimitedCount * 2 > pageRequests) {
      throw new AuditFailure('target_rate_limited', `${rateLimitedCount} of ${pageRequests} page requests kept answering 429 Too Many Requests`);
    }
    level = nextLevel;
  }
  for (const d of level) uncrawled.set(d.url, { foundOn: d.foundOn }); // left over by the page budget

  // ── sitemaps: flag disallowed URLs listed there; check sitemap entries not crawled ────────────
  const sitemaps = await aborter.race(sitemapsPromise);
  const sitemapLocs = new Set<string>();
  for (const s of sitemaps) for (const loc of s.locs ?? []) {
    const u = resolveUrl(loc, homeUrl);
    if (u) sitemapLocs.add(u);
  }
  for (const d of disallowed.values()) if (sitemapLocs.has(d.url)) (d as { inSitemap?: boolean }).inSitemap = true;
  const crawledUrls = new Set<string>();
  for (const p of pages) {
    crawledUrls.add(p.url);
    crawledUrls.add(p.finalUrl);
  }
  for (const loc of sitemapLocs) {
    if (!sameSite(loc) || crawledUrls.has(loc) || uncrawled.has(loc) || disallowed.has(loc)) continue;
    if (!(await rulesFor(loc)).isAllowed(loc)) {
      if (disallowed.size < L.maxDisallowedRecorded) disallowed.set(loc, { url: loc, depth: 1, foundOn: [], inSitemap: true } as DisallowedUrl & { foundOn: string[] });
      continue;
    }
    uncrawled.set(loc, { foundOn: [] });
  }

  // ── resources and link checks ─────────────────────────────────────────────────────────────────
  const resources: SnapshotResource[] = [];
  const linkChecks: LinkCheck[] = [];
  const resourceList = [...resourceRefs].slice(0, L.maxResources);
  await runPool(resourceList, L.concurrencyPerHost * 2, async ([url, ref]) => {
    try {
      const { result } = await fetchWithBackoff(baseOptions(url, L.resourceMaxBytes, { accept: '*/*' }));
      const res = result.response;
      const declared = Number(res.headers['content-length']);
      const bytes = res.truncated && Number.isFinite(declared) && declared > res.body.length ? declared : res.body.length;
      resources.push({ url, status: res.status, headers: res.headers, bytes, ...(ref.kind ? { kind: ref.kind } : {}), foundOn: ref.foundOn });
      if (res.status >= 400) linkChecks.push({ url, status: res.status, foundOn: ref.foundOn, kind: 'resource' });
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      linkChecks.push({ url, status: null, foundOn: ref.foundOn, kind: 'resource' });
    }
  });
  const checkList = [...uncrawled].filter(([u]) => !crawledUrls.has(u)).slice(0, L.maxLinkChecks);
  await runPool(checkList, L.concurrencyPerHost, async ([url, ref]) => {
    linkChecks.push({ url, status: await statusOf(url), foundOn: ref.foundOn, kind: 'page' });
  });
  for (const x of pendingLinkChecks) linkChecks.push(x);

  const [llmsTxt, securityTxt, notFoundProbe, cors, httpsRedirect, tls, dns] = await aborter.race(sideProbes ?? startSideProbes());

  const order = new Map(resourceList.map(([u], i) => [u, i]));
  resources.sort((a, b) => (order.get(a.url) ?? 0) - (order.get(b.url) ?? 0));
  return {
    origin,
    robots,
    pages,
    resources,
    ...(httpsRedirect ? { httpsRedirect } : {}),
    ...(tls ? { tls } : {}),
    ...(dns ? { dns } : {}),
    observedAt,
    securityTxt,
    corsProbe: cors,
    robotsDisallowed: [...disallowed.values()],
    sitemaps,
    linkChecks,
    llmsTxt,
    notFoundProbe,
  };

  // ── helpers closing over the crawl state ──────────────────────────────────────────────────────

  function sameSite(url: string): boolean {
    return siteOfUrl(url) === site;
  }

  function addLinkCheckTarget(url: string, foundOn: string[], status: number | null): void {
    pendingLinkChecks.push({ url, status, foundOn, kind: 'page' });
  }

  async function crawlPage(d: Discovered): Promise<{ page: SnapshotPage | null; links: PageLinks | null; error?: string }> {
    let fetched: Fetched;
    try {
      fetched = await fetchWithBackoff(baseOptions(d.url, L.pageMaxBytes, { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' }));
    } catch (err) {
      if (err instanceof RedirectError) {
        // A loop or an endless chain: record the last hop so SEO_REDIRECT_CHAIN can report it.
        const chain = err.redirectChain ?? [];
        const last = chain[chain.length - 1];
        if (last) {
          return {
            page: {
              url: d.url, finalUrl: last.url, status: last.status, headers: {}, body: null, ttfbMs: 0, bytes: 0, depth: d.depth,
              redirectChain: toHops(chain.slice(0, -1)),
            },
            links: null,
          };
        }
      }
      if (err instanceof OutboundError) return { page: null, links: null, error: errorText(err) };
      throw err;
    }
    const { result, rateLimited } = fetched;
    if (rateLimited) {
      rateLimitedCount++;
      if (d.depth === 0) throw new AuditFailure('target_rate_limited', `${d.url} kept answering 429 Too Many Requests`);
    }
    const res = result.response;
    const textual = isTextType(res.headers);
    const body = textual ? decodeBodyText(res, L.pageMaxBytes) : null;
    seen.add(result.finalUrl);
    const page: SnapshotPage = {
      url: d.url,
      finalUrl: result.finalUrl,
      status: res.status,
      headers: res.headers,
      body,
      ttfbMs: Math.round(res.ttfbMs),
      bytes: res.body.length,
      depth: d.depth,
      redirectChain: toHops(result.chain.slice(0, -1)),
    };
    const html = res.status >= 200 && res.status < 300 && isHtmlResponse(res.headers, body) && sameSite(result.finalUrl);
    const links = html && body !== null ? extractLinks(body, result.finalUrl) : null;
    return { page, links };
  }

  /** Final status of a URL after redirects (HEAD, GET when HEAD is refused); null when unreachable. */
  async function statusOf(url: string): Promise<number | null> {
    try {
      const head = await fetchWithBackoff(baseOptions(url, 0, {}, 'HEAD'));
      const s = head.result.response.status;
      if (s !== 405 && s !== 501 && s !== 403) return s;
      const get = await fetchWithBackoff(baseOptions(url, 1024));
      return get.result.response.status;
    } catch (err) {
      if (err instanceof OutboundError) return null;
      throw err;
    }
  }

  async function collectSitemaps(): Promise<SitemapFetch[]> {
    const out: SitemapFetch[] = [];
    const requested = new Set<string>();
    const queue: Array<{ url: string; source: SitemapFetch['source'] }> = [];
    for (const s of rules.sitemaps()) {
      const u = resolveUrl(s, robotsUrl);
      if (u && !requested.has(u)) {
        requested.add(u);
        queue.push({ url: u, source: 'robots' });
      }
    }
    const defaultUrl = `${origin}/sitemap.xml`;
    if (!requested.has(defaultUrl)) {
      requested.add(defaultUrl);
      queue.push({ url: defaultUrl, source: 'default' });
    }
    while (queue.length > 0 && out.length < L.maxSitemapFetches) {
      const { url, source } = queue.shift()!;
      try {
        const { result } = await fetchWithBackoff(baseOptions(url, L.sitemapMaxBytes, { accept: 'application/xml,text/xml;q=0.9,*/*;q=0.5' }));
        const res = result.response;
        if (res.status < 200 || res.status > 299) {
          out.push({ url, source, status: res.status, root: null });
          continue;
        }
        let text = decodeBodyText(res, L.sitemapMaxBytes);
        // A .xml.gz served as application/gzip without Content-Encoding.
        if (/\.gz$/i.test(new URL(result.finalUrl).pathname) && res.body[0] === 0x1f && res.body[1] === 0x8b && !res.headers['content-encoding']) {
          text = decodeBodyText({ ...res, headers: { ...res.headers, 'content-encoding': 'gzip' } }, L.sitemapMaxBytes);
        }
        const parsed = parseSitemapXml(text, L.maxLocsKept);
        out.push({ url, source, status: res.status, bytes: Buffer.byteLength(text), ...parsed });
        if (parsed.root === 'sitemapindex') {
          for (const loc of parsed.locs) {
            const u = resolveUrl(loc, result.finalUrl);
            if (u && !requested.has(u)) {
              requested.add(u);
              queue.push({ url: u, source: 'index' });
            }
          }
        }
      } catch (err) {
        if (!(err instanceof OutboundError)) throw err;
        out.push({ url, source, status: null, error: errorText(err), root: null });
      }
    }
    return out;
  }

  async function fetchLlmsTxt(): Promise<LlmsTxtFetch> {
    const url = `${origin}/llms.txt`;
    try {
      const { result } = await fetchWithBackoff(baseOptions(url, L.smallBodyBytes));
      const res = result.response;
      const contentType = contentTypeOf(res.headers);
      return {
        kind: 'fetched',
        url,
        status: res.status,
        ...(contentType !== undefined ? { contentType } : {}),
        bodyStart: decodeBodyText(res, L.smallBodyBytes).slice(0, 1024),
      };
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      return { kind: 'unreachable', url, error: errorText(err) };
    }
  }

  async function fetchSecurityTxt(): Promise<SecurityTxtFetch> {
    const url = `${origin}/.well-known/security.txt`;
    try {
      const { result } = await fetchWithBackoff(baseOptions(url, L.smallBodyBytes));
      const res = result.response;
      return { kind: 'fetched', url: result.finalUrl, status: res.status, headers: res.headers, body: decodeBodyText(res, L.smallBodyBytes) };
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      return { kind: 'unreachable', url, error: errorText(err) };
    }
  }

  async function fetchNotFoundProbe(): Promise<NotFoundProbe> {
    const url = `${origin}/da-404-check-${randomBytes(8).toString('hex')}`;
    try {
      const { result } = await fetchWithBackoff(baseOptions(url, L.smallBodyBytes * 4, { accept: 'text/html,*/*;q=0.5' }));
      const res = result.response;
      const contentType = contentTypeOf(res.headers);
      return {
        kind: 'fetched',
        url,
        finalUrl: result.finalUrl,
        status: res.status,
        redirectChain: toHops(result.chain.slice(0, -1)),
        ...(contentType !== undefined ? { contentType } : {}),
        body: isTextType(res.headers) ? decodeBodyText(res, L.smallBodyBytes * 4) : null,
      };
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      return { kind: 'unreachable', url, error: errorText(err) };
    }
  }

  async function corsProbe(): Promise<ProviderFacts<CorsProbeFacts>> {
    try {
      const { result } = await fetchWithBackoff(baseOptions(homeUrl, 0, { origin: CORS_PROBE_ORIGIN }));
      return { ok: true, facts: { url: result.finalUrl, originSent: CORS_PROBE_ORIGIN, status: result.response.status, headers: result.response.headers } };
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      return { ok: false, error: errorText(err) };
    }
  }

  async function httpsRedirectProbe(): Promise<ProviderFacts<HttpsRedirectFacts> | undefined> {
    if (originUrl.protocol !== 'https:') return undefined;
    const httpUrl = `http://${originUrl.hostname.includes(':') && !originUrl.hostname.startsWith('[') ? `[${originUrl.hostname}]` : originUrl.hostname}/`;
    try {
      const { result } = await fetchWithBackoff(baseOptions(httpUrl, 0));
      const chain = toHops(result.chain);
      const firstLocation = chain[0]?.location;
      let sameHostHttpsFirst = false;
      if (firstLocation) {
        try {
          const target = new URL(firstLocation, httpUrl);
          sameHostHttpsFirst = target.protocol === 'https:' && target.hostname === originUrl.hostname;
        } catch {
          sameHostHttpsFirst = false;
        }
      }
      return { ok: true, facts: { httpUrl, chain, finalUrl: result.finalUrl, sameHostHttpsFirst } };
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      // A redirect chain that loops still tells whether the first hop went to https on the same host.
      if (err instanceof RedirectError && err.redirectChain && err.redirectChain.length > 0) {
        const chain = toHops(err.redirectChain);
        let sameHostHttpsFirst = false;
        try {
          const t = new URL(chain[0]!.location ?? '', httpUrl);
          sameHostHttpsFirst = chain[0]!.location !== null && t.protocol === 'https:' && t.hostname === originUrl.hostname;
        } catch {
          sameHostHttpsFirst = false;
        }
        return { ok: true, facts: { httpUrl, chain, finalUrl: null, sameHostHttpsFirst } };
      }
      return { ok: false, error: `${httpUrl}: ${errorText(err)}` };
    }
  }

  async function tlsProbe(): Promise<ProviderFacts<TlsFacts> | undefined> {
    if (originUrl.protocol !== 'https:' || input.probeTls === false) return undefined;
    try {
      const resolved = await aborter.race(resolveAllowed(originUrl.hostname, input.allow));
      const port = originUrl.port === '' ? 443 : Number(originUrl.port);
      const name = originUrl.hostname.startsWith('[') ? originUrl.hostname.slice(1, -1) : originUrl.hostname;
      const facts = await aborter.race(collectTlsFacts(name, port, { connectTimeoutMs: L.requestTimeoutMs, lookupAddress: resolved.address }));
      return { ok: true, facts };
    } catch (err) {
      if (input.signal?.aborted) throw err;
      return { ok: false, error: `TLS probe of ${originUrl.host} failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async function dnsProbe(): Promise<ProviderFacts<DnsFacts> | undefined> {
    const bare = originUrl.hostname.startsWith('[') ? originUrl.hostname.slice(1, -1) : originUrl.hostname;
    if (input.lookupDns === false || isIP(bare) !== 0) return undefined;
    try {
      return { ok: true, facts: await aborter.race(collectDnsFacts(bare, site)) };
    } catch (err) {
      if (input.signal?.aborted) throw err;
      return { ok: false, error: `DNS lookup of ${bare} failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async function runPool<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
    let i = 0;
    const worker = async () => {
      while (i < items.length) {
        aborter.check();
        await fn(items[i++]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  }
}
