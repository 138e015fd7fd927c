import type { Category, Severity } from '../schemas/audit';

/**
 * The analyzer catalog as data (docs/analyzers.md, Catalog): one entry per analyzer, in catalog order.
 * Codes are public and stable once shipped. `title`, `why` and `recommendation` are read by customers
 * (findings, PDF report, docs), so they are written for a site owner, not for us.
 */

type Sev = 'C' | 'H' | 'M' | 'L' | 'I';
type Row = readonly [code: string, sev: Sev, title: string, why: string, recommendation: string];

const ROWS = [
  // ── security ────────────────────────────────────────────────────────────────────────────
  [
    'SEC_HTTPS_UNAVAILABLE',
    'C',
    'HTTPS is not available',
    'Without HTTPS, everything visitors send and receive (passwords, form data, cookies) can be read or altered by anyone on the network path; browsers label the site "Not secure" and search engines rank it lower.',
    "Serve the site over HTTPS with a certificate from a publicly trusted authority (Let's Encrypt issues them free and renews them automatically), then redirect all http:// traffic to https://.",
  ],
  [
    'SEC_HTTP_NOT_REDIRECTED',
    'H',
    'HTTP does not redirect to HTTPS',
    'Visitors who type the bare domain or follow an old http:// link stay on an unencrypted connection, where the page can be intercepted or altered before HSTS ever applies.',
    'Answer every http:// request with a 301 redirect to the same host over https:// first (before any redirect to another host), so the HSTS policy is set for that host.',
  ],
  [
    'SEC_TLS_CERT_INVALID',
    'C',
    'TLS certificate is not valid',
    'Browsers block the site with a full-page warning when its certificate is expired, self-signed, issued for another name or missing intermediate certificates; most visitors leave and API clients fail.',
    'Install a certificate from a publicly trusted authority that covers this exact host name, serve the full intermediate chain, and automate renewal (ACME).',
  ],
  [
    'SEC_TLS_CERT_EXPIRING',
    'M',
    'TLS certificate expires soon',
    'When the certificate expires, browsers block the site until it is replaced.',
    'Renew the certificate now, and automate renewal (ACME clients renew 30 days before expiry) with an alert when a renewal fails.',
  ],
  [
    'SEC_TLS_LEGACY_PROTOCOL',
    'H',
    'Legacy TLS versions accepted (TLS 1.0/1.1)',
    'TLS 1.0 and 1.1 are deprecated (RFC 8996) and have known weaknesses; accepting them allows downgrade attacks and fails PCI DSS and similar compliance checks.',
    'Disable TLS 1.0 and 1.1 on the server, load balancer or CDN, and accept only TLS 1.2 and TLS 1.3.',
  ],
  [
    'SEC_TLS_WEAK_KEY',
    'M',
    'Weak certificate key',
    'RSA keys shorter than 2048 bits and elliptic-curve keys shorter than 256 bits are within reach of well-funded attackers and rejected by modern policies.',
    'Reissue the certificate with an RSA key of at least 2048 bits or an ECDSA P-256 (or stronger) key.',
  ],
  [
    'SEC_HSTS_MISSING',
    'H',
    'HSTS header missing',
    'Without Strict-Transport-Security, browsers may still try http:// first, which lets an attacker on the network intercept or downgrade that first request (SSL stripping).',
    'Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on every HTTPS response (add `preload` once every subdomain supports HTTPS).',
  ],
  [
    'SEC_HSTS_WEAK',
    'M',
    'HSTS policy too short or invalid',
    'A malformed HSTS header is ignored, and a short max-age expires between visits, so browsers fall back to trying insecure connections.',
    'Send a valid header with a max-age of at least one year: `Strict-Transport-Security: max-age=31536000; includeSubDomains`.',
  ],
  [
    'SEC_CSP_MISSING',
    'H',
    'No Content Security Policy',
    'A Content Security Policy restricts where scripts and other resources may load from; it is the main second line of defence against cross-site scripting (XSS) and injected third-party code.',
    "Send a `Content-Security-Policy` header (a Report-Only policy alone does not protect). Start from `default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'`, try it as Content-Security-Policy-Report-Only, then enforce it.",
  ],
  [
    'SEC_CSP_UNSAFE',
    'M',
    'Content Security Policy allows unsafe sources',
    "'unsafe-inline', 'unsafe-eval', data: or http: script sources, or a missing object-src, let injected scripts run and remove most of the protection a CSP gives.",
    "Remove 'unsafe-inline' and 'unsafe-eval' from script-src (use nonces or hashes with 'strict-dynamic'), avoid data: and http: sources, and set `object-src 'none'`.",
  ],
  [
    'SEC_CLICKJACKING',
    'M',
    'Pages can be framed by other sites (clickjacking)',
    'A hostile site can load your pages in an invisible frame and trick visitors into clicking buttons they cannot see.',
    "Send `Content-Security-Policy: frame-ancestors 'self'` (or 'none'), and `X-Frame-Options: SAMEORIGIN` for older browsers.",
  ],
  [
    'SEC_XCTO_MISSING',
    'L',
    'X-Content-Type-Options: nosniff missing',
    'Without nosniff, browsers may guess ("sniff") the type of a response and run an uploaded or mislabelled file as script or stylesheet.',
    'Send `X-Content-Type-Options: nosniff` on every response.',
  ],
  [
    'SEC_REFERRER_POLICY_UNSAFE',
    'L',
    'Referrer policy leaks page addresses',
    'unsafe-url, origin and no-referrer-when-downgrade send full page addresses (with paths and query strings that can hold tokens or personal data) to other sites, or send them over unencrypted connections.',
    'Send `Referrer-Policy: strict-origin-when-cross-origin`, or a stricter policy such as `same-origin` or `no-referrer`.',
  ],
  [
    'SEC_COOKIE_INSECURE',
    'H',
    'Cookies set without security attributes',
    'Cookies without Secure can travel over plain HTTP, session cookies without HttpOnly can be stolen by injected scripts, and a missing or weak SameSite exposes them to cross-site request forgery.',
    'Set `Secure` on every cookie, `HttpOnly` on session and authentication cookies, and `SameSite=Lax` (or Strict); prefer the `__Host-` prefix for session cookies.',
  ],
  [
    'SEC_CORS_CREDENTIALED_ANY',
    'H',
    'CORS trusts any origin with credentials',
    "Reflecting any Origin together with `Access-Control-Allow-Credentials: true` lets any website read your signed-in users' responses.",
    'When credentials are allowed, echo only origins from an explicit allow-list; never reflect an arbitrary Origin header.',
  ],
  [
    'SEC_SRI_MISSING',
    'M',
    'External scripts without integrity check',
    'If a CDN or third-party host is compromised, scripts loaded without Subresource Integrity run the modified code on your pages; scripts loaded over http:// or protocol-relative URLs can be swapped in transit.',
    'Load third-party scripts over https:// with an `integrity` attribute and `crossorigin="anonymous"`, or host them yourself.',
  ],
  [
    'SEC_MIXED_CONTENT',
    'H',
    'HTTPS pages load insecure (http://) resources',
    'Resources fetched over http:// from an https:// page can be read or replaced in transit; browsers block or flag them, which breaks images, scripts and the padlock.',
    'Reference every resource over https:// (or with relative URLs), and add `Content-Security-Policy: upgrade-insecure-requests` as a safety net.',
  ],
  [
    'SEC_VERSION_DISCLOSURE',
    'L',
    'Server software version disclosed',
    'Version numbers in the Server or X-Powered-By headers tell attackers exactly which known vulnerabilities to try.',
    "Remove X-Powered-By and strip version numbers from Server (for example `server_tokens off;` in nginx, `ServerTokens Prod` in Apache, `app.disable('x-powered-by')` in Express, `expose_php = Off` in PHP).",
  ],
  [
    'SEC_SECURITY_TXT_MISSING',
    'L',
    'No security.txt',
    'security.txt (RFC 9116) tells security researchers how to report a vulnerability; without it, reports get lost or are published instead.',
    'Publish /.well-known/security.txt over HTTPS with at least a `Contact:` and an `Expires:` field, and keep Expires in the future.',
  ],
  // ── DNS and email ───────────────────────────────────────────────────────────────────────
  [
    'DNS_DNSSEC_MISSING',
    'M',
    'DNSSEC not enabled',
    'Without DNSSEC, resolvers cannot verify DNS answers, so forged records can send your visitors and email to an attacker.',
    'Enable DNSSEC signing at your DNS provider and publish the DS record at your registrar.',
  ],
  [
    'DNS_CAA_MISSING',
    'L',
    'No CAA record',
    'A CAA record restricts which certificate authorities may issue certificates for the domain, reducing the risk of a mis-issued certificate.',
    'Publish CAA records naming the authorities you use, for example `CAA 0 issue "letsencrypt.org"`, plus an `iodef` contact.',
  ],
  [
    'DNS_IPV6_MISSING',
    'L',
    'No IPv6 address (AAAA record)',
    'Many mobile and broadband users are on IPv6; without an AAAA record they reach the site through translation gateways that add latency and failure points.',
    'Publish an AAAA record for the site (most CDNs and hosts provide one) and check that the site answers over IPv6.',
  ],
  [
    'EMAIL_SPF_MISSING',
    'H',
    'No valid SPF record',
    'Without exactly one SPF record, receivers cannot tell which servers may send mail for the domain: spoofed mail is more likely to be delivered, and your own mail more likely to land in spam.',
    'Publish a single TXT record starting with `v=spf1` that lists your senders and ends with `-all` (or `~all`), for example `v=spf1 include:_spf.google.com -all`.',
  ],
  [
    'EMAIL_SPF_WEAK',
    'M',
    'SPF policy too permissive',
    '`+all`, `?all` or a missing `all` lets any server pass SPF, and more than 10 DNS lookups makes the record fail with a permanent error.',
    'End the record with `-all` or `~all`, and remove unused includes (or flatten nested ones) to stay within 10 DNS lookups.',
  ],
  [
    'EMAIL_DMARC_MISSING',
    'H',
    'No DMARC record',
    'Without DMARC, receivers have no policy for mail that fails SPF and DKIM, so attackers can send phishing mail that appears to come from your domain; large mailbox providers now require DMARC from bulk senders.',
    'Publish a TXT record at `_dmarc.<your domain>`, for example `v=DMARC1; p=quarantine; rua=mailto:dmarc@<your domain>`, watch the reports, then move to `p=reject`.',
  ],
  [
    'EMAIL_DMARC_WEAK',
    'M',
    'DMARC policy does not enforce',
    '`p=none` only monitors: mail that spoofs your domain is still delivered.',
    'Once DMARC reports show your legitimate senders pass, raise the policy to `p=quarantine` and then `p=reject`.',
  ],
  [
    'EMAIL_NO_MAIL_HYGIENE',
    'I',
    'Domain does not declare that it sends no mail',
    'A domain that sends no email can say so (null MX, `v=spf1 -all`, DMARC `p=reject`), so that nobody can send convincing mail in its name.',
    'If the domain sends no mail, publish a null MX record (`MX 0 .`), `v=spf1 -all` and `v=DMARC1; p=reject`.',
  ],
  // ── SEO ─────────────────────────────────────────────────────────────────────────────────
  [
    'SEO_HTTP_STATUS_ERROR',
    'H',
    'Pages answer with an HTTP error',
    'Pages answering 4xx or 5xx drop out of search results and frustrate visitors who reach them through links.',
    'Fix or restore these pages, or redirect (301) removed pages to their closest replacement and update the links that point to them.',
  ],
  [
    'SEO_NOINDEX',
    'C',
    'Pages blocked from search indexing (noindex)',
    'A noindex directive in a robots meta tag or X-Robots-Tag header removes the page from search results entirely.',
    'Remove `noindex` (and `none`) from the robots meta tag and the X-Robots-Tag header of pages that should appear in search results; keep it only on pages you deliberately hide.',
  ],
  [
    'SEO_ROBOTS_BLOCKED',
    'C',
    'robots.txt blocks important pages',
    'Search engines do not crawl pages that robots.txt disallows, so their content cannot rank.',
    'Remove the Disallow rules that match pages you want in search results, and check the file with a robots.txt tester.',
  ],
  [
    'SEO_ROBOTS_TXT_INVALID',
    'M',
    'robots.txt is invalid',
    'When robots.txt answers with a server error or cannot be parsed, search engines may stop crawling the site or ignore your rules.',
    'Serve /robots.txt with status 200 and only valid `User-agent`, `Allow`, `Disallow` and `Sitemap` lines, under 500 KiB; answer 404 if you have no rules.',
  ],
  [
    'SEO_SITEMAP_INVALID',
    'M',
    'XML sitemap missing or invalid',
    'A sitemap helps search engines find and recrawl your pages; a malformed one, or one listing broken, redirected or noindex URLs, wastes their crawl budget.',
    'Publish a valid XML sitemap (at most 50,000 URLs per file, with a sitemap index beyond that) that lists only canonical, indexable URLs answering 200, and reference it from robots.txt with a `Sitemap:` line.',
  ],
  [
    'SEO_TITLE_MISSING',
    'H',
    'Page title missing',
    'The title is the headline of your search result and the label of the browser tab; without one, search engines make one up.',
    'Give every page a unique, descriptive `<title>` in its `<head>`, about 30 to 60 characters long.',
  ],
  [
    'SEO_TITLE_DUPLICATE',
    'M',
    'Duplicate or badly sized titles',
    'Identical titles make your pages compete with each other in search results; very short titles say little and long ones are cut off.',
    'Write a unique title of 30 to 60 characters for each page, starting with what is specific to that page.',
  ],
  [
    'SEO_META_DESC_MISSING',
    'M',
    'Meta description missing or duplicated',
    'Search engines often show the meta description as the snippet under your result; a missing or duplicated one gives a weaker snippet and fewer clicks.',
    'Add a unique `<meta name="description" content="...">` of roughly 70 to 160 characters that summarises each page.',
  ],
  [
    'SEO_H1_MISSING',
    'L',
    'Missing or multiple H1 headings',
    'A single H1 tells visitors and search engines what the page is about; none, or several, make the structure unclear.',
    'Give each page exactly one `<h1>` naming its main topic, and use `<h2>` to `<h6>` for sections.',
  ],
  [
    'SEO_CANONICAL_INVALID',
    'M',
    'Invalid canonical link',
    'A conflicting, relative or misdirected rel=canonical can make search engines index the wrong URL, or drop the page in favour of another one.',
    'Give each page one absolute `<link rel="canonical">` that points to its own preferred URL (not to the home page), and make sure that URL answers 200.',
  ],
  [
    'SEO_HREFLANG_INVALID',
    'M',
    'Invalid hreflang annotations',
    'Invalid language codes, relative URLs or missing return links make search engines ignore hreflang, so visitors are shown the wrong language version.',
    'Use valid codes (such as `en`, `en-GB`, `x-default`) and absolute URLs, and make every language version link back to all the others.',
  ],
  [
    'SEO_BROKEN_LINK',
    'H',
    'Broken internal links',
    "Links to pages or resources that answer 4xx or 5xx frustrate visitors and waste search engines' crawl budget.",
    'Update or remove links to missing pages and resources, or redirect the old URLs to their replacements.',
  ],
  [
    'SEO_REDIRECT_CHAIN',
    'M',
    'Redirect chains or loops',
    'Every extra redirect hop adds latency and can stop search engines from following the link; a loop makes the page unreachable.',
    'Point links and redirects straight at the final URL in a single hop, and break any loop.',
  ],
  [
    'SEO_LINK_TEXT_GENERIC',
    'L',
    'Links with generic text',
    'Link text such as "click here" or "read more" tells search engines and screen-reader users nothing about where the link goes.',
    'Use link text that names the destination, for example "Read the pricing guide" instead of "Read more".',
  ],
  [
    'SEO_ANCHOR_NOT_CRAWLABLE',
    'L',
    'Links search engines cannot follow',
    'Anchors without an href, or with a javascript: URL, cannot be followed by crawlers, so the pages behind them may never be found.',
    'Use real `<a href="/path">` links for navigation, and `<button>` elements for actions.',
  ],
  [
    'SEO_STRUCTURED_DATA_INVALID',
    'L',
    'Invalid structured data',
    'JSON-LD that does not parse, or items without @type, are ignored, so the page loses rich results (ratings, prices, FAQs) in search.',
    'Fix the JSON syntax, give each item an `@context` of https://schema.org and an `@type`, and check the page with a rich-results test.',
  ],
  [
    'SEO_LLMS_TXT',
    'I',
    'No llms.txt for AI assistants',
    '/llms.txt is an emerging convention that gives AI assistants and agents a short, curated map of your site.',
    'Optionally publish /llms.txt: a Markdown summary of the site with links to its most important pages.',
  ],
  // ── performance ─────────────────────────────────────────────────────────────────────────
  [
    'PERF_TTFB_SLOW',
    'M',
    'Slow server response (time to first byte)',
    'Everything on the page waits for the first byte; a server that takes more than 600 to 800 ms delays the whole load and hurts Core Web Vitals.',
    'Cache rendered pages (at a CDN or in the application), speed up slow database queries and backend calls, and serve visitors from a region near them.',
  ],
  [
    'PERF_COMPRESSION_MISSING',
    'M',
    'Text responses not compressed',
    'HTML, CSS and JavaScript sent without compression are typically 3 to 5 times larger, which slows every page load, especially on mobile networks.',
    'Enable Brotli (br) and gzip compression for text types (text/html, text/css, JavaScript, JSON, SVG) on the server or CDN.',
  ],
  [
    'PERF_CACHE_WEAK',
    'L',
    'Static assets not cached for long',
    'Without a long cache lifetime, returning visitors download the same images, scripts and stylesheets again.',
    'Serve fingerprinted static assets with `Cache-Control: public, max-age=31536000, immutable`.',
  ],
  [
    'PERF_PAGE_WEIGHT_HIGH',
    'M',
    'Heavy pages',
    'Large pages load slowly, especially on mobile networks, and cost visitors data.',
    'Compress and resize images (WebP or AVIF), remove unused JavaScript and CSS, and lazy-load media below the fold; aim for under 2.6 MiB per page.',
  ],
  [
    'PERF_RENDER_BLOCKING',
    'L',
    'Render-blocking resources',
    'Synchronous scripts in the head and many separate stylesheets must all load before anything is shown, delaying the first paint.',
    'Add `defer` (or `async`) to scripts in the head, inline the critical CSS, and combine or defer non-critical stylesheets.',
  ],
  [
    'PERF_IMG_UNSIZED',
    'L',
    'Images without width and height',
    'Without explicit dimensions the browser cannot reserve space for an image, so the content jumps as images load (layout shift, CLS).',
    'Set `width` and `height` attributes on every `<img>` (CSS can still scale it), or give it a CSS `aspect-ratio`.',
  ],
  // ── accessibility ───────────────────────────────────────────────────────────────────────
  [
    'A11Y_IMG_ALT_MISSING',
    'H',
    'Images without alternative text',
    'Screen-reader users hear nothing, or a file name, for images without alternative text, and search engines cannot tell what they show.',
    'Add an `alt` attribute to every `<img>` and `<input type="image">`: describe informative images, and use `alt=""` for purely decorative ones.',
  ],
  [
    'A11Y_LANG_INVALID',
    'M',
    'Page language missing or invalid',
    'Screen readers use the lang attribute to choose their pronunciation; without a valid one they read the page with the wrong voice, and translation tools guess the language wrongly.',
    'Set a valid BCP 47 language tag on the html element, for example `<html lang="en">` or `<html lang="pt-BR">`.',
  ],
  [
    'A11Y_FORM_LABEL_MISSING',
    'H',
    'Form fields without labels',
    'Screen-reader and voice-control users cannot tell what an unlabelled input or select is for.',
    'Associate a `<label for="...">` with each field or wrap the field in its label; use aria-label only when a visible label is impossible.',
  ],
  [
    'A11Y_CONTROL_NAME_MISSING',
    'H',
    'Links or buttons without an accessible name',
    'Icon-only links and buttons without text are announced as just "link" or "button", so assistive-technology users cannot know what they do.',
    'Give every link and button visible text, an `aria-label` (for icon buttons), or alt text on the image inside it.',
  ],
  [
    'A11Y_ZOOM_DISABLED',
    'H',
    'Zooming is disabled',
    '`user-scalable=no` or a maximum-scale below 5 stops people with low vision from enlarging the page on phones and tablets.',
    'Use `<meta name="viewport" content="width=device-width, initial-scale=1">` without user-scalable=no or a low maximum-scale.',
  ],
  [
    'A11Y_DUPLICATE_ID_ARIA',
    'M',
    'Duplicate IDs referenced by ARIA',
    'When an id used by aria-labelledby, aria-describedby or a label appears twice, assistive technologies may read the wrong label.',
    'Make every id on the page unique, especially the ids that ARIA attributes and labels refer to.',
  ],
  // ── best practices ──────────────────────────────────────────────────────────────────────
  [
    'BP_DOCTYPE_CHARSET',
    'L',
    'Doctype or character encoding missing',
    'Without `<!DOCTYPE html>` browsers render the page in quirks mode, and without an early character-encoding declaration text may display garbled.',
    'Start every page with `<!DOCTYPE html>` and declare `<meta charset="utf-8">` within the first 1024 bytes (or send the charset in the Content-Type header).',
  ],
  [
    'BP_VIEWPORT_MISSING',
    'M',
    'No mobile viewport',
    'Without a viewport meta tag, phones render the page at desktop width and shrink it, so text is tiny; search engines consider the page not mobile-friendly.',
    'Add `<meta name="viewport" content="width=device-width, initial-scale=1">` to the head of every page.',
  ],
  [
    'BP_SOFT_404',
    'L',
    'Missing pages do not answer 404 (soft 404)',
    'When an address that does not exist answers 200, or the error page is nearly empty, search engines index junk URLs and lost visitors get no help.',
    'Answer unknown URLs with status 404 and a helpful error page (a search box and links to the main sections).',
  ],
] as const satisfies readonly Row[];

export type AnalyzerCode = (typeof ROWS)[number][0];

export interface CatalogEntry {
  readonly code: AnalyzerCode;
  readonly category: Category;
  readonly severity: Severity;
  readonly title: string;
  /** Why it matters, for a site owner. */
  readonly why: string;
  /** What to change; copied into every finding of this analyzer. */
  readonly recommendation: string;
}

const SEVERITY_OF: Record<Sev, Severity> = { C: 'critical', H: 'high', M: 'medium', L: 'low', I: 'info' };

/** The category follows from the code's prefix, so a new row cannot be filed in the wrong one. */
export function categoryOfCode(code: string): Category {
  if (code.startsWith('SEC_')) return 'security';
  if (code.startsWith('DNS_') || code.startsWith('EMAIL_')) return 'dns_email';
  if (code.startsWith('SEO_')) return 'seo';
  if (code.startsWith('PERF_')) return 'performance';
  if (code.startsWith('A11Y_')) return 'accessibility';
  if (code.startsWith('BP_')) return 'best_practices';
  throw new Error(`analyzer code ${code} has no known category prefix`);
}

/** Every analyzer, in catalog order (also the order of `analyzers[]` in an audit). */
export const CATALOG: readonly CatalogEntry[] = Object.freeze(
  ROWS.map(([code, sev, title, why, recommendation]) =>
    Object.freeze({ code, category: categoryOfCode(code), severity: SEVERITY_OF[sev], title, why, recommendation }),
  ),
);

export const ANALYZER_CODES: readonly AnalyzerCode[] = Object.freeze(CATALOG.map((e) => e.code));

const BY_CODE: ReadonlyMap<string, CatalogEntry> = new Map(CATALOG.map((e) => [e.code, e]));
const ORDER: ReadonlyMap<string, number> = new Map(CATALOG.map((e, i) => [e.code, i]));

/** The catalog entry of a code; throws on an unknown code (a programming error, not a data error). */
export function catalogEntry(code: string): CatalogEntry {
  const entry = BY_CODE.get(code);
  if (!entry) throw new Error(`unknown analyzer code ${code}`);
  return entry;
}

export function findCatalogEntry(code: string): CatalogEntry | undefined {
  return BY_CODE.get(code);
}

/** Position in the catalog, for sorting; unknown codes sort last. */
export function catalogIndex(code: string): number {
  return ORDER.get(code) ?? Number.MAX_SAFE_INTEGER;
}

/** Scoring v1: an analyzer's weight by its severity. */
export const SEVERITY_WEIGHTS: Readonly<Record<Severity, number>> = Object.freeze({
  critical: 10,
  high: 7,
  medium: 3,
  low: 1,
  info: 0,
});

/** Scoring v1: a category's weight in the overall score. */
export const CATEGORY_WEIGHTS: Readonly<Record<Category, number>> = Object.freeze({
  security: 25,
  seo: 25,
  performance: 15,
  accessibility: 15,
  best_practices: 10,
  dns_email: 10,
});

/** Most severe first; used to order findings. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = Object.freeze({
  critical: 0,
  high: 1,
  medium: 2,
  low: 3,
  info: 4,
});
