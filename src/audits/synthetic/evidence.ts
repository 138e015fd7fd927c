import type { AnalyzerCode } from '../../analyzers/catalog';
import type { FindingDraft } from '../../analyzers/types';
import type { Severity } from '../../schemas/audit';
import type { Rng } from './rng';
import type { Site } from './site';

/**
 * What a failed or warning check of the synthetic site reports: messages and evidence written the
 * way the real analyzers write theirs, with names, hosts and numbers drawn from the site.
 */

export interface EvidenceContext {
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

export const EVIDENCE: Readonly<Record<AnalyzerCode, EvidenceFn>> = {
  SEC_HTTPS_UNAVAILABLE: ({ domain, site }) => [
    {
      message: 'The site could not be reached over HTTPS; it is served only over unencrypted http://.',
      evidence: `https://${site.host}: connection refused on port 443`,
      urls: [domain],
    },
  ],
  SEC_HTTP_NOT_REDIRECTED: ({ site, rng }) => [
    rng.chance(0.5)
      ? {
          message: 'http:// answers with the page itself instead of redirecting to https://.',
          evidence: `GET http://${site.host}/ → HTTP 200 (no redirect)`,
          urls: [`http://${site.host}/`],
        }
      : {
          message: 'http:// first redirects to another host, so HSTS cannot be set for this one.',
          evidence: `GET http://${site.host}/ → 301 https://www.${site.registrable}/`,
          urls: [`http://${site.host}/`],
        },
  ],
  SEC_TLS_CERT_INVALID: ({ domain, site, rng }) => [
    rng.chance(0.5)
      ? {
          message: 'The certificate chain is incomplete: the intermediate certificate is not served.',
          evidence: `unable to verify the first certificate (subject CN=${site.host}, issuer CN=R11)`,
          urls: [domain],
        }
      : {
          message: 'The certificate does not cover this host name.',
          evidence: `certificate names *.${rng.pick(['herokuapp.com', 'netlify.app', 'hosting-provider.net'])}, not ${site.host}`,
          urls: [domain],
        },
  ],
  SEC_TLS_CERT_EXPIRING: ({ domain, rng }) => {
    const days = rng.int(2, 29);
    return [
      {
        message: `The certificate expires in ${days} days.`,
        evidence: `notAfter in ${days} days; issuer: ${rng.pick(["Let's Encrypt R11", 'Sectigo RSA Domain Validation', 'DigiCert Global G2'])}`,
        urls: [domain],
        ...(days <= 7 ? { severity: 'high' as Severity } : {}),
      },
    ];
  },
  SEC_TLS_LEGACY_PROTOCOL: ({ domain, rng }) => {
    const both = rng.chance(0.6);
    return [
      {
        message: `The server accepts ${both ? 'TLS 1.0 and TLS 1.1' : 'TLS 1.1'} handshakes.`,
        evidence: both ? 'TLSv1: accepted; TLSv1.1: accepted' : 'TLSv1: refused; TLSv1.1: accepted',
        urls: [domain],
      },
    ];
  },
  SEC_TLS_WEAK_KEY: ({ domain }) => [
    { message: 'The certificate uses a 1024-bit RSA key.', evidence: 'public key: RSA 1024 bits', urls: [domain] },
  ],
  SEC_HSTS_MISSING: (ctx) => [
    {
      message: `HTTPS page served without a Strict-Transport-Security header.${everywhere(ctx)}`,
      evidence: 'Strict-Transport-Security: (absent)',
    },
  ],
  SEC_HSTS_WEAK: (ctx) =>
    ctx.status === 'warn'
      ? [
          {
            message: `HSTS max-age is 15768000 (182.5 days), under the recommended one year.${everywhere(ctx)}`,
            evidence: 'Strict-Transport-Security: max-age=15768000',
          },
        ]
      : [
          {
            message: `HSTS max-age is 86400 (1 days), under the 6-month minimum.${everywhere(ctx)}`,
            evidence: 'Strict-Transport-Security: max-age=86400; includeSubDomains',
          },
        ],
  SEC_CSP_MISSING: (ctx) => [
    {
      message: `No Content-Security-Policy header or <meta http-equiv="Content-Security-Policy">.${everywhere(ctx)}`,
      evidence: 'Content-Security-Policy: (absent)',
    },
  ],
  SEC_CSP_UNSAFE: (ctx) => [
    {
      message: `The policy allows 'unsafe-inline' scripts and sets no object-src.${everywhere(ctx)}`,
      evidence:
        "Content-Security-Policy: default-src 'self'; script-src 'self' 'unsafe-inline' https://www.googletagmanager.com; img-src 'self' data: https:",
    },
  ],
  SEC_CLICKJACKING: (ctx) => [
    {
      message: `Neither X-Frame-Options nor a CSP frame-ancestors directive stops other sites from framing this page.${everywhere(ctx)}`,
      evidence: 'X-Frame-Options: (absent); no CSP frame-ancestors directive',
    },
  ],
  SEC_XCTO_MISSING: (ctx) => [
    { message: `No X-Content-Type-Options header.${everywhere(ctx)}`, evidence: 'X-Content-Type-Options: (absent)' },
  ],
  SEC_REFERRER_POLICY_UNSAFE: (ctx) => {
    const policy = ctx.rng.pick(['no-referrer-when-downgrade', 'unsafe-url']);
    return [
      {
        message: `Referrer policy "${policy}" sends this site's addresses to other sites.${everywhere(ctx)}`,
        evidence: `Referrer-Policy: ${policy}`,
      },
    ];
  },
  SEC_COOKIE_INSECURE: ({ domain, rng }) => {
    const cookie = rng.pick(['PHPSESSID', 'session_id', 'connect.sid', 'laravel_session']);
    return [
      {
        message: `Cookie ${cookie} is set without the Secure and HttpOnly attributes.`,
        evidence: `Set-Cookie: ${cookie}=…; path=/`,
        urls: [`${domain}/login`],
      },
    ];
  },
  SEC_CORS_CREDENTIALED_ANY: ({ domain }) => [
    {
      message: 'The API reflects any Origin and allows credentials.',
      evidence:
        'Origin: https://attacker.example → Access-Control-Allow-Origin: https://attacker.example; Access-Control-Allow-Credentials: true',
      urls: [`${domain}/api/me`],
    },
  ],
  SEC_SRI_MISSING: (ctx) => [
    {
      message: `External script loaded without an integrity attribute.${everywhere(ctx)}`,
      evidence: ctx.rng.pick([
        '<script src="https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js"></script>',
        '<script src="https://unpkg.com/alpinejs@3.14.1/dist/cdn.min.js" defer></script>',
        '<script src="https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js"></script>',
      ]),
    },
  ],
  SEC_MIXED_CONTENT: ({ site }) => [
    {
      message: 'HTTPS page loads an image over http://.',
      evidence: `<img src="http://${site.host}/images/hero.jpg" alt="">`,
    },
  ],
  SEC_VERSION_DISCLOSURE: (ctx) => {
    const header = ctx.rng.pick([
      'Server: nginx/1.18.0 (Ubuntu)',
      'Server: Apache/2.4.41 (Ubuntu)',
      'X-Powered-By: PHP/8.1.2',
      'X-Powered-By: Express',
      'Server: Microsoft-IIS/10.0',
    ]);
    const name = header.split(':')[0]!;
    return [
      {
        message: `${name === 'Server' ? 'The Server header names the software version.' : 'The X-Powered-By header discloses the technology stack.'}${everywhere(ctx)}`,
        evidence: header,
      },
    ];
  },
  SEC_SECURITY_TXT_MISSING: ({ domain }) => [
    {
      message: 'No security.txt file is published.',
      evidence: 'GET /.well-known/security.txt → HTTP 404',
      urls: [`${domain}/.well-known/security.txt`],
    },
  ],
  DNS_DNSSEC_MISSING: ({ domain, site }) => [
    {
      message: `${site.registrable} is not signed with DNSSEC.`,
      evidence: `no DS record for ${site.registrable}`,
      urls: [domain],
    },
  ],
  DNS_CAA_MISSING: ({ domain, site }) => [
    {
      message: 'No CAA record restricts which authorities may issue certificates.',
      evidence: `no CAA record at ${site.host}${site.host !== site.registrable ? ` or ${site.registrable}` : ''}`,
      urls: [domain],
    },
  ],
  DNS_IPV6_MISSING: ({ domain, site, rng }) => [
    {
      message: `${site.host} has no IPv6 address.`,
      evidence: `${site.host}: A 203.0.113.${rng.int(2, 254)}; AAAA (none)`,
      urls: [domain],
    },
  ],
  EMAIL_SPF_MISSING: ({ domain, site, rng }) => [
    rng.chance(0.7)
      ? {
          message: `${site.registrable} publishes no SPF record.`,
          evidence: `no TXT record starting with v=spf1 at ${site.registrable}`,
          urls: [domain],
        }
      : {
          message: `${site.registrable} publishes two SPF records, which makes SPF fail.`,
          evidence: 'v=spf1 include:_spf.google.com ~all | v=spf1 include:sendgrid.net ~all',
          urls: [domain],
        },
  ],
  EMAIL_SPF_WEAK: ({ domain, rng }) => {
    const ending = rng.pick(['?all', '+all', '']);
    return [
      {
        message:
          ending === ''
            ? 'The SPF record has no all mechanism, so unlisted servers are not rejected.'
            : `The SPF record ends with ${ending}, so any server passes.`,
        evidence: `v=spf1 include:_spf.google.com include:sendgrid.net${ending ? ` ${ending}` : ''}`,
        urls: [domain],
      },
    ];
  },
  EMAIL_DMARC_MISSING: ({ domain, site }) => [
    {
      message: `No DMARC record at _dmarc.${site.registrable}.`,
      evidence: `no TXT record at _dmarc.${site.registrable}`,
      urls: [domain],
    },
  ],
  EMAIL_DMARC_WEAK: ({ domain, site }) => [
    {
      message: 'The DMARC policy is p=none: spoofed mail is still delivered.',
      evidence: `v=DMARC1; p=none; rua=mailto:dmarc@${site.registrable}`,
      urls: [domain],
    },
  ],
  EMAIL_NO_MAIL_HYGIENE: ({ domain, site }) => [
    {
      message: `${site.registrable} has no MX record and does not declare that it sends no mail.`,
      evidence: 'MX (none); no null MX; SPF without -all',
      urls: [domain],
    },
  ],
  SEO_HTTP_STATUS_ERROR: () => [{ message: 'The page answers HTTP 404 (Not Found).', evidence: 'HTTP 404 Not Found' }],
  SEO_NOINDEX: (ctx) =>
    ctx.status === 'fail'
      ? [
          {
            message:
              'The home page is excluded from search results: a <meta name="robots"> tag tells search engines not to index this page.',
            evidence: '<meta name="robots" content="noindex, nofollow">',
            urls: [`${ctx.domain}/`],
          },
        ]
      : [
          {
            message: 'A <meta name="robots"> tag tells search engines not to index this page.',
            evidence: '<meta name="robots" content="noindex">',
          },
        ],
  SEO_ROBOTS_BLOCKED: ({ domain }) => [
    {
      message: 'robots.txt disallows /blog/, which the home page links to.',
      evidence: 'User-agent: *\nDisallow: /blog/',
      urls: [`${domain}/blog`],
    },
  ],
  SEO_ROBOTS_TXT_INVALID: ({ domain, rng }) => [
    rng.chance(0.5)
      ? {
          message: 'robots.txt has a line search engines cannot parse.',
          evidence: 'line 7: "Dissallow: /admin" (unknown directive)',
          urls: [`${domain}/robots.txt`],
        }
      : {
          message: 'robots.txt answers with a server error, so search engines may stop crawling.',
          evidence: 'GET /robots.txt → HTTP 503',
          urls: [`${domain}/robots.txt`],
        },
  ],
  SEO_SITEMAP_INVALID: ({ domain, rng }) => [
    rng.chance(0.5)
      ? {
          message: 'No XML sitemap was found.',
          evidence: 'GET /sitemap.xml → HTTP 404; no Sitemap: line in robots.txt',
          urls: [`${domain}/sitemap.xml`],
        }
      : {
          message: 'The sitemap lists URLs that redirect.',
          evidence: `<loc>${domain.replace(/^https:/, 'http:')}/about</loc> → 301`,
          urls: [`${domain}/sitemap.xml`],
        },
  ],
  SEO_TITLE_MISSING: () => [{ message: 'The page title is empty.', evidence: '<title></title>' }],
  SEO_TITLE_DUPLICATE: (ctx) =>
    ctx.status === 'warn'
      ? [{ message: 'The same title is used on several pages.', evidence: `<title>${ctx.site.name}</title>` }]
      : [{ message: 'The title is shorter than 30 characters.', evidence: `<title>${ctx.site.name} | Home</title>` }],
  SEO_META_DESC_MISSING: () => [
    { message: 'The page has no meta description.', evidence: '(no <meta name="description"> element)' },
  ],
  SEO_H1_MISSING: (ctx) =>
    ctx.status === 'warn'
      ? [
          {
            message: 'The page has 2 <h1> headings instead of one.',
            evidence: `<h1 class="logo">${ctx.site.name}</h1> | <h1>Welcome</h1>`,
          },
        ]
      : [{ message: 'The page has no <h1> heading.', evidence: '(no <h1> element)' }],
  SEO_CANONICAL_INVALID: () => [
    {
      message: 'The canonical link is relative and points to the home page.',
      evidence: '<link rel="canonical" href="/">',
    },
  ],
  SEO_HREFLANG_INVALID: ({ domain }) => [
    {
      message: 'hreflang "en-UK" is not a valid code (the region of the United Kingdom is GB).',
      evidence: `<link rel="alternate" hreflang="en-UK" href="${domain}/en/">`,
    },
  ],
  SEO_BROKEN_LINK: ({ domain }) => [
    {
      message: 'A link points to a page that answers HTTP 404.',
      evidence: `<a href="/careers/open-roles">View open roles</a> → ${domain}/careers/open-roles: HTTP 404`,
    },
  ],
  SEO_REDIRECT_CHAIN: ({ site }) => [
    {
      message: 'A link goes through 2 redirects before reaching the page.',
      evidence: `http://${site.host}/blog → https://${site.host}/blog → https://${site.host}/blog/`,
    },
  ],
  SEO_LINK_TEXT_GENERIC: (ctx) => [
    {
      message: 'A link uses generic text.',
      evidence: `<a href="${ctx.rng.pick(['/blog', '/features', '/customers'])}" class="more">${ctx.rng.pick(['Read more', 'Click here', 'Learn more'])}</a>`,
    },
  ],
  SEO_ANCHOR_NOT_CRAWLABLE: () => [
    {
      message: 'An anchor uses a javascript: URL, which crawlers cannot follow.',
      evidence: '<a href="javascript:void(0)" class="nav-toggle">Products</a>',
    },
  ],
  SEO_STRUCTURED_DATA_INVALID: ({ site }) => [
    {
      message: 'A JSON-LD block has no @type.',
      evidence: `<script type="application/ld+json">{"@context":"https://schema.org","name":"${site.name}","url":"https://${site.host}/"}</script>`,
    },
  ],
  SEO_LLMS_TXT: ({ domain }) => [
    { message: 'No /llms.txt file is published.', evidence: 'GET /llms.txt → HTTP 404', urls: [`${domain}/llms.txt`] },
  ],
  PERF_TTFB_SLOW: (ctx) => {
    const ms = ctx.status === 'fail' ? ctx.rng.int(820, 2400) : ctx.rng.int(610, 790);
    return [{ message: `The server took ${ms} ms to send the first byte.`, evidence: `TTFB ${ms} ms` }];
  },
  PERF_COMPRESSION_MISSING: (ctx) => {
    const bytes = ctx.rng.int(28_000, 160_000);
    return [
      {
        message: `A text/html response of ${bytes.toLocaleString('en-US')} bytes is sent without br or gzip compression.${everywhere(ctx)}`,
        evidence: `Content-Encoding: (absent); Content-Type: text/html; charset=utf-8; ${bytes} bytes`,
      },
    ];
  },
  PERF_CACHE_WEAK: ({ domain, rng }) => {
    const asset = `${domain}/assets/app.${rng.int(0x100000, 0xffffff).toString(16)}.js`;
    return [
      {
        message: 'A fingerprinted script is cached for only 10 minutes.',
        evidence: 'Cache-Control: public, max-age=600',
        urls: [asset],
      },
    ];
  },
  PERF_PAGE_WEIGHT_HIGH: (ctx) => {
    const mib = ctx.status === 'fail' ? 4 + ctx.rng.int(0, 40) / 10 : 2.7 + ctx.rng.int(0, 12) / 10;
    return [
      {
        message: `The page and its resources weigh ${mib.toFixed(1)} MiB.`,
        evidence: `total ${mib.toFixed(1)} MiB; images ${(mib * 0.7).toFixed(1)} MiB`,
      },
    ];
  },
  PERF_RENDER_BLOCKING: (ctx) => [
    {
      message: `A synchronous script in <head> delays the first paint.${everywhere(ctx)}`,
      evidence: '<script src="/js/vendor.bundle.js"></script>',
    },
  ],
  PERF_IMG_UNSIZED: (ctx) => [
    {
      message: 'Image without width and height.',
      evidence: `<img src="/images/${ctx.rng.pick(['hero', 'team', 'product-shot', 'dashboard'])}.webp" alt="${ctx.site.name}" loading="lazy">`,
    },
  ],
  A11Y_IMG_ALT_MISSING: (ctx) => [
    {
      message: 'Image without an alt attribute.',
      evidence: `<img src="/images/${ctx.rng.pick(['logo.svg', 'customer-logo-1.png', 'screenshot.png'])}" class="${ctx.rng.pick(['logo', 'img-fluid', 'brand'])}">`,
    },
  ],
  A11Y_LANG_INVALID: (ctx) =>
    ctx.rng.chance(0.5)
      ? [{ message: `The <html> element has no lang attribute.${everywhere(ctx)}`, evidence: '<html>' }]
      : [
          {
            message: `The lang attribute "en_US" is not a valid BCP 47 language tag.${everywhere(ctx)}`,
            evidence: '<html lang="en_US">',
          },
        ],
  A11Y_FORM_LABEL_MISSING: () => [
    {
      message: 'A form field has no label.',
      evidence: '<input type="email" name="email" placeholder="Your work email">',
    },
  ],
  A11Y_CONTROL_NAME_MISSING: (ctx) => [
    ctx.rng.chance(0.5)
      ? {
          message: `A button has no accessible name.${everywhere(ctx)}`,
          evidence:
            '<button class="menu-toggle"><svg viewBox="0 0 24 24"><path d="M3 6h18M3 12h18M3 18h18"/></svg></button>',
        }
      : {
          message: `A link has no accessible name.${everywhere(ctx)}`,
          evidence: `<a href="https://www.linkedin.com/company/${ctx.site.name.toLowerCase()}" class="social"><i class="icon-linkedin"></i></a>`,
        },
  ],
  A11Y_ZOOM_DISABLED: (ctx) => [
    {
      message: `The viewport prevents zooming: user-scalable=no, maximum-scale=1 (below 5).${everywhere(ctx)}`,
      evidence:
        '<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no">',
    },
  ],
  A11Y_DUPLICATE_ID_ARIA: () => [
    {
      message: 'An id referenced by aria-labelledby is used twice on the page.',
      evidence: 'id="search-label" ×2; referenced by <input aria-labelledby="search-label">',
    },
  ],
  BP_DOCTYPE_CHARSET: (ctx) => [
    {
      message: `No character encoding is declared (no <meta charset>, no charset in Content-Type).${everywhere(ctx)}`,
      evidence: 'Content-Type: text/html',
    },
  ],
  BP_VIEWPORT_MISSING: (ctx) => [
    {
      message: `The page has no <meta name="viewport"> tag.${everywhere(ctx)}`,
      evidence: '(no <meta name="viewport"> element)',
    },
  ],
  BP_SOFT_404: ({ domain, rng }) => {
    const path = `/this-page-does-not-exist-${rng.int(0x10000000, 0x7fffffff).toString(16)}`;
    return [
      {
        message: 'A non-existent address answers 200 instead of 404.',
        evidence: `GET ${path} → HTTP 200`,
        urls: [`${domain}${path}`],
      },
    ];
  },
};
