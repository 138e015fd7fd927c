import { createHash } from 'node:crypto';
import { getDomain } from 'tldts';
import { TIER_RULES } from '../accounts/tiers';
import { CATALOG, type AnalyzerCode } from '../analyzers/catalog';
import { FindingIdAllocator, makeAnalyzerResult, makeFinding } from '../analyzers/findings';
import type { FindingDraft } from '../analyzers/types';
import type { AnalyzerResult, AuditJson, CrawledPage, Finding, Severity, Tier } from '../schemas/audit';
import { assembleAuditJson } from './assemble';

/**
 * Test-mode audits: realistic, deterministic, and free of network access. Everything is drawn from
 * PRNG streams seeded by sha256(workspace, domain, stream label), never Math.random, so the same test
 * key and domain give the same findings, analyzers and score on every run. The tier changes only how
 * many pages the crawl reports, not what was found, because the same audit id can be asked at several
 * tiers. The whole catalog runs; the score comes from the real scoring module.
 */

export interface SyntheticAuditInput {
  auditId: string;
  workspaceId: string;
  /** Normalized origin, e.g. https://example.com */
  domain: string;
  tier: Tier;
  createdAt: string;
  startedAt: string;
  completedAt: string;
}

/** Listed pages are capped to keep stored bodies small; crawl.pages_crawled carries the real count. */
export const SYNTHETIC_MAX_LISTED_PAGES = 25;
/** Findings cite pages among the first ones crawled, which every tier crawls (free budget: 10). */
const FINDING_URL_POOL = 10;

// ── deterministic randomness ───────────────────────────────────────────────────────────────────

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: Buffer) {
    this.a = seed.readUInt32BE(0);
    this.b = seed.readUInt32BE(4);
    this.c = seed.readUInt32BE(8);
    this.d = seed.readUInt32BE(12);
    for (let i = 0; i < 12; i++) this.next(); // sfc32 warm-up
  }

  /** sfc32: small, fast, good statistical quality, identical on every platform. [0, 1) */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** k distinct items, in their original order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const idx = items.map((_, i) => i);
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [idx[i], idx[j]] = [idx[j]!, idx[i]!];
    }
    return idx.slice(0, Math.max(0, Math.min(k, items.length))).sort((x, y) => x - y).map((i) => items[i]!);
  }
}

function streamFactory(workspaceId: string, domain: string): (label: string) => Rng {
  return (label) => new Rng(createHash('sha256').update(`synthetic-audit/v1\u0000${workspaceId}\u0000${domain}\u0000${label}`).digest());
}

// ── the synthetic site ─────────────────────────────────────────────────────────────────────────

const TOP_PATHS = [
  '/pricing', '/about', '/contact', '/blog', '/features', '/customers', '/docs', '/careers', '/security',
  '/privacy', '/terms', '/integrations', '/changelog', '/support', '/login', '/signup', '/partners', '/press',
  '/solutions', '/resources',
];
const NESTED_PATHS = [
  '/docs/getting-started', '/docs/api', '/docs/faq', '/solutions/enterprise', '/solutions/startups',
  '/resources/guides', '/resources/webinars', '/customers/case-studies', '/careers/engineering',
];
const SLUG_A = ['how', 'why', 'what', 'ten', 'five', 'the', 'a'];
const SLUG_B = ['teams', 'we', 'customers', 'startups', 'developers', 'marketers', 'founders'];
const SLUG_C = ['ship-faster', 'scale-support', 'reduce-churn', 'measure-growth', 'plan-a-launch', 'hire-well', 'cut-costs'];

interface SitePage {
  url: string;
  path: string;
  depth: number;
}

interface Site {
  host: string;
  registrable: string;
  name: string;
  /** Pages the site has (the crawl stops at the tier's budget). */
  size: number;
  /** Pages in crawl order (home first); as many as could ever be listed. */
  pages: SitePage[];
  /** 0 (neglected) … 1 (well kept): scales how often checks fail. */
  quality: number;
  baseTtfb: number;
  sendsMail: boolean;
  dnsAvailable: boolean;
}

function buildSite(domain: string, rng: Rng): Site {
  const host = hostOf(domain);
  const registrable = getDomain(host) ?? host;
  const label = (registrable.split('.')[0] ?? host).replace(/[^a-z0-9-]/gi, '');
  const name = label ? label.charAt(0).toUpperCase() + label.slice(1) : host;
  const size = Math.round(Math.exp(Math.log(4) + rng.next() * (Math.log(5000) - Math.log(4))));
  const top = [...TOP_PATHS];
  shuffle(top, rng);
  const nested = [...NESTED_PATHS];
  shuffle(nested, rng);
  const posts = new Set<string>();
  while (posts.size < 8) posts.add(`/blog/${rng.pick(SLUG_A)}-${rng.pick(SLUG_B)}-${rng.pick(SLUG_C)}`);
  const paths = ['/', ...top.slice(0, 12), ...[...posts].slice(0, 4), ...nested.slice(0, 4), ...top.slice(12), ...[...posts].slice(4)];
  const pages = paths.slice(0, Math.min(size, SYNTHETIC_MAX_LISTED_PAGES)).map((path) => ({
    url: `${domain}${path}`,
    path,
    depth: path === '/' ? 0 : path.split('/').length - 1,
  }));
  const quality = rng.next();
  return {
    host, registrable, name, size, pages, quality,
    baseTtfb: Math.round(Math.exp(Math.log(90) + rng.next() * (Math.log(700) - Math.log(90)))),
    sendsMail: rng.chance(0.85),
    dnsAvailable: rng.chance(0.92),
  };
}

function shuffle<T>(items: T[], rng: Rng): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}

function hostOf(domain: string): string {
  try {
    return new URL(domain).hostname;
  } catch {
    return domain.replace(/^[a-z]+:\/\//i, '').replace(/[/:].*$/, '');
  }
}

// ── outcome model ──────────────────────────────────────────────────────────────────────────────

/**
 * How often real sites fail (and warn on) each check, roughly as public crawl statistics report it;
 * `page` checks affect a share of pages, `site` checks the site as a whole; `na` is the chance the
 * check does not apply (no cookies, no JSON-LD, one language only…).
 */
interface Model {
  kind: 'site' | 'page';
  fail: number;
  warn?: number;
  na?: number;
  /** Usually site-wide when it fails (headers, layout): most failures affect every page. */
  sitewide?: boolean;
}

const MODEL: Record<AnalyzerCode, Model> = {
  SEC_HTTPS_UNAVAILABLE: { kind: 'site', fail: 0 }, // decided from the origin's scheme below
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
  BP_DOCTYPE_CHARSET: { kind: 'page', fail: 0.05, sitewide: true },
  BP_VIEWPORT_MISSING: { kind: 'page', fail: 0.05, sitewide: true },
  BP_SOFT_404: { kind: 'site', fail: 0.25 },
};

interface Drawn {
  status: 'pass' | 'warn' | 'fail' | 'not_applicable';
  /** Share of pages affected (page checks), 1 for site checks. */
  share: number;
}

/** Neglected sites fail more often, well-kept ones less; rare critical failures stay rare. */
function adjusted(p: number, quality: number): number {
  return Math.min(0.97, p * (2.8 - 2.6 * quality));
}

function draw(model: Model, quality: number, rng: Rng): Drawn {
  // Fixed number of draws per analyzer, so one analyzer's outcome never shifts another's.
  const [rNa, rOutcome, rSitewide, rShare] = [rng.next(), rng.next(), rng.next(), rng.next()];
  if (model.na !== undefined && rNa < model.na) return { status: 'not_applicable', share: 0 };
  const fail = adjusted(model.fail, quality);
  const warn = adjusted(model.warn ?? 0, quality);
  const status = rOutcome < fail ? 'fail' : rOutcome < fail + warn ? 'warn' : 'pass';
  if (status === 'pass') return { status, share: 0 };
  if (model.kind === 'site') return { status, share: 1 };
  const sitewide = model.sitewide ? rSitewide < 0.8 : rSitewide < 0.25;
  return { status, share: sitewide ? 1 : 0.04 + rShare * 0.6 };
}

// ── evidence ───────────────────────────────────────────────────────────────────────────────────

interface EvidenceContext {
  domain: string;
  site: Site;
  status: 'warn' | 'fail';
  rng: Rng;
  /** Pages the finding cites (already chosen). */
  urls: string[];
  /** Affects every crawled page. */
  sitewide: boolean;
}

type Draft = Omit<FindingDraft, 'urls'> & { urls?: string[] };
type EvidenceFn = (ctx: EvidenceContext) => Draft[];

const everywhere = (ctx: EvidenceContext) => (ctx.sitewide ? ' This applies to every crawled page.' : '');

const EVIDENCE: Record<AnalyzerCode, EvidenceFn> = {
  SEC_HTTPS_UNAVAILABLE: ({ domain, site }) => [{
    message: 'The site could not be reached over HTTPS; it is served only over unencrypted http://.',
    evidence: `https://${site.host}: connection refused on port 443`, urls: [domain],
  }],
  SEC_HTTP_NOT_REDIRECTED: ({ site, rng }) => [rng.chance(0.5)
    ? { message: 'http:// answers with the page itself instead of redirecting to https://.', evidence: `GET http://${site.host}/ → HTTP 200 (no redirect)`, urls: [`http://${site.host}/`] }
    : { message: 'http:// first redirects to another host, so HSTS cannot be set for this one.', evidence: `GET http://${site.host}/ → 301 https://www.${site.registrable}/`, urls: [`http://${site.host}/`] }],
  SEC_TLS_CERT_INVALID: ({ domain, site, rng }) => [rng.chance(0.5)
    ? { message: 'The certificate chain is incomplete: the intermediate certificate is not served.', evidence: `unable to verify the first certificate (subject CN=${site.host}, issuer CN=R11)`, urls: [domain] }
    : { message: 'The certificate does not cover this host name.', evidence: `certificate names *.${rng.pick(['herokuapp.com', 'netlify.app', 'hosting-provider.net'])}, not ${site.host}`, urls: [domain] }],
  SEC_TLS_CERT_EXPIRING: ({ domain, rng }) => {
    const days = rng.int(2, 29);
    return [{ message: `The certificate expires in ${days} days.`, evidence: `notAfter in ${days} days; issuer: ${rng.pick(["Let's Encrypt R11", 'Sectigo RSA Domain Validation', 'DigiCert Global G2'])}`, urls: [domain], ...(days <= 7 ? { severity: 'high' as Severity } : {}) }];
  },
  SEC_TLS_LEGACY_PROTOCOL: ({ domain, rng }) => {
    const both = rng.chance(0.6);
    return [{ message: `The server accepts ${both ? 'TLS 1.0 and TLS 1.1' : 'TLS 1.1'} handshakes.`, evidence: both ? 'TLSv1: accepted; TLSv1.1: accepted' : 'TLSv1: refused; TLSv1.1: accepted', urls: [domain] }];
  },
  SEC_TLS_WEAK_KEY: ({ domain }) => [{ message: 'The certificate uses a 1024-bit RSA key.', evidence: 'public key: RSA 1024 bits', urls: [domain] }],
  SEC_HSTS_MISSING: (ctx) => [{ message: `HTTPS page served without a Strict-Transport-Security header.${everywhere(ctx)}`, evidence: 'Strict-Transport-Security: (absent)' }],
  SEC_HSTS_WEAK: (ctx) => ctx.status === 'warn'
    ? [{ message: `HSTS max-age is 15768000 (182.5 days), under the recommended one year.${everywhere(ctx)}`, evidence: 'Strict-Transport-Security: max-age=15768000' }]
    : [{ message: `HSTS max-age is 86400 (1 days), under the 6-month minimum.${everywhere(ctx)}`, evidence: 'Strict-Transport-Security: max-age=86400; includeSubDomains' }],
  SEC_CSP_MISSING: (ctx) => [{ message: `No Content-Security-Policy header or <meta http-equiv="Content-Security-Policy">.${everywhere(ctx)}`, evidence: 'Content-Security-Policy: (absent)' }],
  SEC_CSP_UNSAFE: (ctx) => [{
    message: `The policy allows 'unsafe-inline' scripts and sets no object-src.${everywhere(ctx)}`,
    evidence: "Content-Security-Policy: default-src 'self'; script-src 'self' 'unsafe-inline' https://www.googletagmanager.com; img-src 'self' data: https:",
  }],
  SEC_CLICKJACKING: (ctx) => [{ message: `Neither X-Frame-Options nor a CSP frame-ancestors directive stops other sites from framing this page.${everywhere(ctx)}`, evidence: 'X-Frame-Options: (absent); no CSP frame-ancestors directive' }],
  SEC_XCTO_MISSING: (ctx) => [{ message: `No X-Content-Type-Options header.${everywhere(ctx)}`, evidence: 'X-Content-Type-Options: (absent)' }],
  SEC_REFERRER_POLICY_UNSAFE: (ctx) => {
    const policy = ctx.rng.pick(['no-referrer-when-downgrade', 'unsafe-url']);
    return [{ message: `Referrer policy "${policy}" sends this site's addresses to other sites.${everywhere(ctx)}`, evidence: `Referrer-Policy: ${policy}` }];
  },
  SEC_COOKIE_INSECURE: ({ domain, rng }) => {
    const cookie = rng.pick(['PHPSESSID', 'session_id', 'connect.sid', 'laravel_session']);
    return [{ message: `Cookie ${cookie} is set without the Secure and HttpOnly attributes.`, evidence: `Set-Cookie: ${cookie}=…; path=/`, urls: [`${domain}/login`] }];
  },
  SEC_CORS_CREDENTIALED_ANY: ({ domain }) => [{
    message: 'The API reflects any Origin and allows credentials.',
    evidence: 'Origin: https://attacker.example → Access-Control-Allow-Origin: https://attacker.example; Access-Control-Allow-Credentials: true',
    urls: [`${domain}/api/me`],
  }],
  SEC_SRI_MISSING: (ctx) => [{
    message: `External script loaded without an integrity attribute.${everywhere(ctx)}`,
    evidence: ctx.rng.pick([
      '<script src="https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js"></script>',
      '<script src="https://unpkg.com/alpinejs@3.14.1/dist/cdn.min.js" defer></script>',
      '<script src="https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js"></script>',
    ]),
  }],
  SEC_MIXED_CONTENT: ({ site }) => [{ message: 'HTTPS page loads an image over http://.', evidence: `<img src="http://${site.host}/images/hero.jpg" alt="">` }],
  SEC_VERSION_DISCLOSURE: (ctx) => {
    const header = ctx.rng.pick(['Server: nginx/1.18.0 (Ubuntu)', 'Server: Apache/2.4.41 (Ubuntu)', 'X-Powered-By: PHP/8.1.2', 'X-Powered-By: Express', 'Server: Microsoft-IIS/10.0']);
    const name = header.split(':')[0]!;
    return [{ message: `${name === 'Server' ? 'The Server header names the software version.' : 'The X-Powered-By header discloses the technology stack.'}${everywhere(ctx)}`, evidence: header }];
  },
  SEC_SECURITY_TXT_MISSING: ({ domain }) => [{ message: 'No security.txt file is published.', evidence: 'GET /.well-known/security.txt → HTTP 404', urls: [`${domain}/.well-known/security.txt`] }],
  DNS_DNSSEC_MISSING: ({ domain, site }) => [{ message: `${site.registrable} is not signed with DNSSEC.`, evidence: `no DS record for ${site.registrable}`, urls: [domain] }],
  DNS_CAA_MISSING: ({ domain, site }) => [{ message: 'No CAA record restricts which authorities may issue certificates.', evidence: `no CAA record at ${site.host}${site.host !== site.registrable ? ` or ${site.registrable}` : ''}`, urls: [domain] }],
  DNS_IPV6_MISSING: ({ domain, site, rng }) => [{ message: `${site.host} has no IPv6 address.`, evidence: `${site.host}: A 203.0.113.${rng.int(2, 254)}; AAAA (none)`, urls: [domain] }],
  EMAIL_SPF_MISSING: ({ domain, site, rng }) => [rng.chance(0.7)
    ? { message: `${site.registrable} publishes no SPF record.`, evidence: `no TXT record starting with v=spf1 at ${site.registrable}`, urls: [domain] }
    : { message: `${site.registrable} publishes two SPF records, which makes SPF fail.`, evidence: 'v=spf1 include:_spf.google.com ~all | v=spf1 include:sendgrid.net ~all', urls: [domain] }],
  EMAIL_SPF_WEAK: ({ domain, rng }) => {
    const ending = rng.pick(['?all', '+all', '']);
    return [{
      message: ending === '' ? 'The SPF record has no all mechanism, so unlisted servers are not rejected.' : `The SPF record ends with ${ending}, so any server passes.`,
      evidence: `v=spf1 include:_spf.google.com include:sendgrid.net${ending ? ` ${ending}` : ''}`, urls: [domain],
    }];
  },
  EMAIL_DMARC_MISSING: ({ domain, site }) => [{ message: `No DMARC record at _dmarc.${site.registrable}.`, evidence: `no TXT record at _dmarc.${site.registrable}`, urls: [domain] }],
  EMAIL_DMARC_WEAK: ({ domain, site }) => [{ message: 'The DMARC policy is p=none: spoofed mail is still delivered.', evidence: `v=DMARC1; p=none; rua=mailto:dmarc@${site.registrable}`, urls: [domain] }],
  EMAIL_NO_MAIL_HYGIENE: ({ domain, site }) => [{ message: `${site.registrable} has no MX record and does not declare that it sends no mail.`, evidence: 'MX (none); no null MX; SPF without -all', urls: [domain] }],
  SEO_HTTP_STATUS_ERROR: () => [{ message: 'The page answers HTTP 404 (Not Found).', evidence: 'HTTP 404 Not Found' }],
  SEO_NOINDEX: (ctx) => ctx.status === 'fail'
    ? [{ message: 'The home page is excluded from search results: a <meta name="robots"> tag tells search engines not to index this page.', evidence: '<meta name="robots" content="noindex, nofollow">', urls: [`${ctx.domain}/`] }]
    : [{ message: 'A <meta name="robots"> tag tells search engines not to index this page.', evidence: '<meta name="robots" content="noindex">' }],
  SEO_ROBOTS_BLOCKED: ({ domain }) => [{ message: 'robots.txt disallows /blog/, which the home page links to.', evidence: 'User-agent: *\nDisallow: /blog/', urls: [`${domain}/blog`] }],
  SEO_ROBOTS_TXT_INVALID: ({ domain, rng }) => [rng.chance(0.5)
    ? { message: 'robots.txt has a line search engines cannot parse.', evidence: 'line 7: "Dissallow: /admin" (unknown directive)', urls: [`${domain}/robots.txt`] }
    : { message: 'robots.txt answers with a server error, so search engines may stop crawling.', evidence: 'GET /robots.txt → HTTP 503', urls: [`${domain}/robots.txt`] }],
  SEO_SITEMAP_INVALID: ({ domain, rng }) => [rng.chance(0.5)
    ? { message: 'No XML sitemap was found.', evidence: 'GET /sitemap.xml → HTTP 404; no Sitemap: line in robots.txt', urls: [`${domain}/sitemap.xml`] }
    : { message: 'The sitemap lists URLs that redirect.', evidence: `<loc>${domain.replace(/^https:/, 'http:')}/about</loc> → 301`, urls: [`${domain}/sitemap.xml`] }],
  SEO_TITLE_MISSING: () => [{ message: 'The page title is empty.', evidence: '<title></title>' }],
  SEO_TITLE_DUPLICATE: (ctx) => ctx.status === 'warn'
    ? [{ message: 'The same title is used on several pages.', evidence: `<title>${ctx.site.name}</title>` }]
    : [{ message: 'The title is shorter than 30 characters.', evidence: `<title>${ctx.site.name} | Home</title>` }],
  SEO_META_DESC_MISSING: () => [{ message: 'The page has no meta description.', evidence: '(no <meta name="description"> element)' }],
  SEO_H1_MISSING: (ctx) => ctx.status === 'warn'
    ? [{ message: 'The page has 2 <h1> headings instead of one.', evidence: `<h1 class="logo">${ctx.site.name}</h1> | <h1>Welcome</h1>` }]
    : [{ message: 'The page has no <h1> heading.', evidence: '(no <h1> element)' }],
  SEO_CANONICAL_INVALID: () => [{ message: 'The canonical link is relative and points to the home page.', evidence: '<link rel="canonical" href="/">' }],
  SEO_HREFLANG_INVALID: ({ domain }) => [{ message: 'hreflang "en-UK" is not a valid code (the region of the United Kingdom is GB).', evidence: `<link rel="alternate" hreflang="en-UK" href="${domain}/en/">` }],
  SEO_BROKEN_LINK: ({ domain }) => [{ message: 'A link points to a page that answers HTTP 404.', evidence: `<a href="/careers/open-roles">View open roles</a> → ${domain}/careers/open-roles: HTTP 404` }],
  SEO_REDIRECT_CHAIN: ({ site }) => [{ message: 'A link goes through 2 redirects before reaching the page.', evidence: `http://${site.host}/blog → https://${site.host}/blog → https://${site.host}/blog/` }],
  SEO_LINK_TEXT_GENERIC: (ctx) => [{ message: 'A link uses generic text.', evidence: `<a href="${ctx.rng.pick(['/blog', '/features', '/customers'])}" class="more">${ctx.rng.pick(['Read more', 'Click here', 'Learn more'])}</a>` }],
  SEO_ANCHOR_NOT_CRAWLABLE: () => [{ message: 'An anchor uses a javascript: URL, which crawlers cannot follow.', evidence: '<a href="javascript:void(0)" class="nav-toggle">Products</a>' }],
  SEO_STRUCTURED_DATA_INVALID: ({ site }) => [{ message: 'A JSON-LD block has no @type.', evidence: `<script type="application/ld+json">{"@context":"https://schema.org","name":"${site.name}","url":"https://${site.host}/"}</script>` }],
  SEO_LLMS_TXT: ({ domain }) => [{ message: 'No /llms.txt file is published.', evidence: 'GET /llms.txt → HTTP 404', urls: [`${domain}/llms.txt`] }],
  PERF_TTFB_SLOW: (ctx) => {
    const ms = ctx.status === 'fail' ? ctx.rng.int(820, 2400) : ctx.rng.int(610, 790);
    return [{ message: `The server took ${ms} ms to send the first byte.`, evidence: `TTFB ${ms} ms` }];
  },
  PERF_COMPRESSION_MISSING: (ctx) => {
    const bytes = ctx.rng.int(28_000, 160_000);
    return [{ message: `A text/html response of ${bytes.toLocaleString('en-US')} bytes is sent without br or gzip compression.${everywhere(ctx)}`, evidence: `Content-Encoding: (absent); Content-Type: text/html; charset=utf-8; ${bytes} bytes` }];
  },
  PERF_CACHE_WEAK: ({ domain, rng }) => {
    const asset = `${domain}/assets/app.${rng.int(0x100000, 0xffffff).toString(16)}.js`;
    return [{ message: 'A fingerprinted script is cached for only 10 minutes.', evidence: 'Cache-Control: public, max-age=600', urls: [asset] }];
  },
  PERF_PAGE_WEIGHT_HIGH: (ctx) => {
    const mib = ctx.status === 'fail' ? 4 + ctx.rng.int(0, 40) / 10 : 2.7 + ctx.rng.int(0, 12) / 10;
    return [{ message: `The page and its resources weigh ${mib.toFixed(1)} MiB.`, evidence: `total ${mib.toFixed(1)} MiB; images ${(mib * 0.7).toFixed(1)} MiB` }];
  },
  PERF_RENDER_BLOCKING: (ctx) => [{ message: `A synchronous script in <head> delays the first paint.${everywhere(ctx)}`, evidence: '<script src="/js/vendor.bundle.js"></script>' }],
  PERF_IMG_UNSIZED: (ctx) => [{ message: 'Image without width and height.', evidence: `<img src="/images/${ctx.rng.pick(['hero', 'team', 'product-shot', 'dashboard'])}.webp" alt="${ctx.site.name}" loading="lazy">` }],
  A11Y_IMG_ALT_MISSING: (ctx) => [{ message: 'Image without an alt attribute.', evidence: `<img src="/images/${ctx.rng.pick(['logo.svg', 'customer-logo-1.png', 'screenshot.png'])}" class="${ctx.rng.pick(['logo', 'img-fluid', 'brand'])}">` }],
  A11Y_LANG_INVALID: (ctx) => ctx.rng.chance(0.5)
    ? [{ message: `The <html> element has no lang attribute.${everywhere(ctx)}`, evidence: '<html>' }]
    : [{ message: `The lang attribute "en_US" is not a valid BCP 47 language tag.${everywhere(ctx)}`, evidence: '<html lang="en_US">' }],
  A11Y_FORM_LABEL_MISSING: () => [{ message: 'A form field has no label.', evidence: '<input type="email" name="email" placeholder="Your work email">' }],
  A11Y_CONTROL_NAME_MISSING: (ctx) => [ctx.rng.chance(0.5)
    ? { message: `A button has no accessible name.${everywhere(ctx)}`, evidence: '<button class="menu-toggle"><svg viewBox="0 0 24 24"><path d="M3 6h18M3 12h18M3 18h18"/></svg></button>' }
    : { message: `A link has no accessible name.${everywhere(ctx)}`, evidence: `<a href="https://www.linkedin.com/company/${ctx.site.name.toLowerCase()}" class="social"><i class="icon-linkedin"></i></a>` }],
  A11Y_ZOOM_DISABLED: (ctx) => [{ message: `The viewport prevents zooming: user-scalable=no, maximum-scale=1 (below 5).${everywhere(ctx)}`, evidence: '<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no">' }],
  A11Y_DUPLICATE_ID_ARIA: () => [{ message: 'An id referenced by aria-labelledby is used twice on the page.', evidence: 'id="search-label" ×2; referenced by <input aria-labelledby="search-label">' }],
  BP_DOCTYPE_CHARSET: (ctx) => [{ message: `No character encoding is declared (no <meta charset>, no charset in Content-Type).${everywhere(ctx)}`, evidence: 'Content-Type: text/html' }],
  BP_VIEWPORT_MISSING: (ctx) => [{ message: `The page has no <meta name="viewport"> tag.${everywhere(ctx)}`, evidence: '(no <meta name="viewport"> element)' }],
  BP_SOFT_404: ({ domain, rng }) => {
    const path = `/this-page-does-not-exist-${rng.int(0x10000000, 0x7fffffff).toString(16)}`;
    return [{ message: 'A non-existent address answers 200 instead of 404.', evidence: `GET ${path} → HTTP 200`, urls: [`${domain}${path}`] }];
  },
};

// ── the audit ──────────────────────────────────────────────────────────────────────────────────

const HTTPS_DEPENDENT: readonly AnalyzerCode[] = [
  'SEC_TLS_CERT_INVALID', 'SEC_TLS_CERT_EXPIRING', 'SEC_TLS_LEGACY_PROTOCOL', 'SEC_TLS_WEAK_KEY',
  'SEC_HSTS_MISSING', 'SEC_HSTS_WEAK', 'SEC_MIXED_CONTENT', 'SEC_HTTP_NOT_REDIRECTED',
];
const NEEDS_MAIL: readonly AnalyzerCode[] = ['EMAIL_SPF_MISSING', 'EMAIL_SPF_WEAK', 'EMAIL_DMARC_MISSING', 'EMAIL_DMARC_WEAK'];

export function syntheticAudit(input: SyntheticAuditInput): AuditJson {
  const stream = streamFactory(input.workspaceId, input.domain);
  const site = buildSite(input.domain, stream('site'));
  const budget = TIER_RULES[input.tier].pageBudget;
  const pagesCrawled = Math.min(site.size, budget);
  const listed = site.pages.slice(0, Math.min(pagesCrawled, SYNTHETIC_MAX_LISTED_PAGES));
  const pool = site.pages.slice(0, Math.min(site.size, FINDING_URL_POOL)).map((p) => p.url);
  const home = pool[0]!;

  const outcomes = new Map<AnalyzerCode, Drawn>();
  for (const entry of CATALOG) outcomes.set(entry.code, draw(MODEL[entry.code], site.quality, stream(`analyzer:${entry.code}`)));

  // Consistency between analyzers, as the real ones would report it.
  const httpsDown = input.domain.startsWith('http://') && stream('https').chance(0.35);
  outcomes.set('SEC_HTTPS_UNAVAILABLE', { status: httpsDown ? 'fail' : 'pass', share: httpsDown ? 1 : 0 });
  if (httpsDown) for (const code of HTTPS_DEPENDENT) outcomes.set(code, { status: 'not_applicable', share: 0 });
  const sitewideFail = (code: AnalyzerCode) => outcomes.get(code)!.status === 'fail' && outcomes.get(code)!.share === 1;
  if (sitewideFail('SEC_HSTS_MISSING')) outcomes.set('SEC_HSTS_WEAK', { status: 'not_applicable', share: 0 });
  if (sitewideFail('SEC_CSP_MISSING')) outcomes.set('SEC_CSP_UNSAFE', { status: 'not_applicable', share: 0 });
  if (sitewideFail('BP_VIEWPORT_MISSING')) outcomes.set('A11Y_ZOOM_DISABLED', { status: 'not_applicable', share: 0 });
  for (const entry of CATALOG) {
    const dnsEmail = entry.category === 'dns_email';
    if (dnsEmail && !site.dnsAvailable) outcomes.set(entry.code, { status: 'not_applicable', share: 0 });
    else if (NEEDS_MAIL.includes(entry.code) && !site.sendsMail) outcomes.set(entry.code, { status: 'not_applicable', share: 0 });
    else if (entry.code === 'EMAIL_NO_MAIL_HYGIENE' && site.sendsMail) outcomes.set(entry.code, { status: 'not_applicable', share: 0 });
  }
  if (outcomes.get('EMAIL_SPF_MISSING')!.status === 'fail') outcomes.set('EMAIL_SPF_WEAK', { status: 'not_applicable', share: 0 });
  if (outcomes.get('EMAIL_DMARC_MISSING')!.status === 'fail') outcomes.set('EMAIL_DMARC_WEAK', { status: 'not_applicable', share: 0 });

  const ids = new FindingIdAllocator();
  const analyzers: AnalyzerResult[] = [];
  const findings: Finding[] = [];
  const affectedBy = new Map<AnalyzerCode, Set<string>>();
  for (const entry of CATALOG) {
    const o = outcomes.get(entry.code)!;
    const model = MODEL[entry.code];
    // Page checks: score is the share of pages passing, a warning counting half (as perPage does).
    const lost = o.status === 'fail' ? o.share : o.status === 'warn' ? o.share / 2 : 0;
    analyzers.push(makeAnalyzerResult(entry.code, o.status, 1 - lost));
    if (o.status !== 'fail' && o.status !== 'warn') continue;
    const rng = stream(`evidence:${entry.code}`);
    let urls: string[];
    if (model.kind === 'site') urls = [home];
    else if (o.share === 1) urls = pool;
    else {
      // Error pages and stray noindex are never the home page (that would fail or block the audit).
      const candidates = pool.length > 1 && (entry.code === 'SEO_HTTP_STATUS_ERROR' || entry.code === 'SEO_NOINDEX') ? pool.slice(1) : pool;
      urls = rng.sample(candidates, Math.max(1, Math.round(o.share * candidates.length)));
    }
    affectedBy.set(entry.code, new Set(urls));
    for (const d of EVIDENCE[entry.code]({ domain: input.domain, site, status: o.status, rng, urls, sitewide: model.kind === 'page' && o.share === 1 })) {
      findings.push(makeFinding(entry.code, { ...d, urls: d.urls ?? urls }, ids));
    }
  }

  const crawlRng = stream('crawl');
  const pages: CrawledPage[] = listed.map((p) => {
    const broken = affectedBy.get('SEO_HTTP_STATUS_ERROR')?.has(p.url) === true;
    const slow = affectedBy.get('PERF_TTFB_SLOW')?.has(p.url) === true;
    const untitled = affectedBy.get('SEO_TITLE_MISSING')?.has(p.url) === true;
    const jitter = crawlRng.next();
    // Pages not reported slow stay under the 600 ms warning threshold, as the analyzer would require.
    const ttfb = slow ? Math.round(650 + jitter * 900) : Math.min(590, Math.round(site.baseTtfb * (0.7 + jitter * 0.6)));
    const bytes = broken ? 4_000 + crawlRng.int(0, 8_000) : 18_000 + crawlRng.int(0, 180_000);
    return {
      url: p.url,
      status_code: broken ? 404 : 200,
      depth: p.depth,
      ttfb_ms: ttfb,
      bytes,
      content_type: 'text/html; charset=utf-8',
      title: broken ? `Page not found | ${site.name}` : untitled ? '' : pageTitle(p.path, site.name),
    };
  });
  // A plausible crawl time: pages fetched 3 at a time at about the site's response time.
  const durationMs = Math.round(800 + (pagesCrawled * (site.baseTtfb + 120)) / 3);

  return assembleAuditJson({
    auditId: input.auditId,
    domain: input.domain,
    mode: 'test',
    tier: input.tier,
    createdAt: input.createdAt,
    startedAt: input.startedAt,
    completedAt: input.completedAt,
    pageBudget: budget,
    crawlDurationMs: durationMs,
    pages,
    pagesCrawled,
    analyzers,
    findings,
  });
}

function pageTitle(path: string, name: string): string {
  if (path === '/') return `${name} | Home`;
  const last = path.split('/').filter(Boolean).pop() ?? '';
  const words = last.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
  return `${words} | ${name}`;
}
