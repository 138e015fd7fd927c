import { markupSubject, resourceSubject, type EvidenceByCode } from './evidence-context';

/** What the SEO analyzers of the synthetic site report when they warn or fail. */
export const SEO_EVIDENCE = {
  SEO_HTTP_STATUS_ERROR: () => [
    { message: 'The page answers HTTP 404 (Not Found).', evidence: 'HTTP 404 Not Found', subject: 'HTTP 404' },
  ],
  SEO_NOINDEX: (ctx) =>
    ctx.status === 'fail'
      ? [
          {
            message:
              'The home page is excluded from search results: a <meta name="robots"> tag tells search engines not to index this page.',
            evidence: '<meta name="robots" content="noindex, nofollow">',
            urls: [`${ctx.domain}/`],
            subject: 'home meta robots',
          },
        ]
      : [
          {
            message: 'A <meta name="robots"> tag tells search engines not to index this page.',
            evidence: '<meta name="robots" content="noindex">',
            subject: 'meta robots',
          },
        ],
  SEO_ROBOTS_BLOCKED: ({ domain }) => [
    {
      message: 'robots.txt disallows /blog/, which the home page links to.',
      evidence: 'User-agent: *\nDisallow: /blog/',
      urls: [`${domain}/blog`],
      subject: 'linked disallow: /blog/',
    },
  ],
  SEO_ROBOTS_TXT_INVALID: ({ domain, rng }) => [
    rng.chance(0.5)
      ? {
          message: 'robots.txt has a line search engines cannot parse.',
          evidence: 'line 7: "Dissallow: /admin" (unknown directive)',
          urls: [`${domain}/robots.txt`],
          subject: 'unparsable lines',
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
          subject: 'no valid sitemap',
        }
      : {
          message: 'The sitemap lists URLs that redirect.',
          evidence: `<loc>${domain.replace(/^https:/, 'http:')}/about</loc> → 301`,
          urls: [`${domain}/sitemap.xml`],
          subject: 'entries status',
        },
  ],
  SEO_TITLE_MISSING: () => [{ message: 'The page title is empty.', evidence: '<title></title>', subject: 'empty' }],
  SEO_TITLE_DUPLICATE: (ctx) =>
    ctx.status === 'warn'
      ? [
          {
            message: 'The same title is used on several pages.',
            evidence: `<title>${ctx.site.name}</title>`,
            subject: `duplicate ${ctx.site.name}`,
          },
        ]
      : [
          {
            message: 'The title is shorter than 30 characters.',
            evidence: `<title>${ctx.site.name} | Home</title>`,
            subject: `short ${ctx.site.name} | Home`,
          },
        ],
  SEO_META_DESC_MISSING: () => [
    {
      message: 'The page has no meta description.',
      evidence: '(no <meta name="description"> element)',
      subject: 'missing',
    },
  ],
  SEO_H1_MISSING: (ctx) =>
    ctx.status === 'warn'
      ? [
          {
            message: 'The page has 2 <h1> headings instead of one.',
            evidence: `<h1 class="logo">${ctx.site.name}</h1> | <h1>Welcome</h1>`,
            subject: 'several',
          },
        ]
      : [{ message: 'The page has no <h1> heading.', evidence: '(no <h1> element)', subject: 'missing' }],
  SEO_CANONICAL_INVALID: () => [
    {
      message: 'The canonical link is relative and points to the home page.',
      evidence: '<link rel="canonical" href="/">',
      subject: 'relative /',
    },
  ],
  SEO_HREFLANG_INVALID: ({ domain }) => [
    {
      message: 'hreflang "en-UK" is not a valid code (the region of the United Kingdom is GB).',
      evidence: `<link rel="alternate" hreflang="en-UK" href="${domain}/en/">`,
      subject: 'invalid en-uk',
    },
  ],
  SEO_BROKEN_LINK: ({ domain }) => [
    {
      message: 'A link points to a page that answers HTTP 404.',
      evidence: `<a href="/careers/open-roles">View open roles</a> → ${domain}/careers/open-roles: HTTP 404`,
      subject: resourceSubject(`${domain}/careers/open-roles`, domain),
    },
  ],
  SEO_REDIRECT_CHAIN: ({ site }) => [
    {
      message: 'A link goes through 2 redirects before reaching the page.',
      evidence: `http://${site.host}/blog → https://${site.host}/blog → https://${site.host}/blog/`,
      subject: `http://${site.host}/blog`,
    },
  ],
  SEO_INTERNAL_REDIRECT_LINK: ({ site }) => [
    {
      message: `https://${site.host}/pricing redirects (HTTP 301) to https://${site.host}/pricing/; it is linked from 12 pages.`,
      evidence: `https://${site.host}/pricing → 301 → https://${site.host}/pricing/`,
      subject: '/pricing',
    },
  ],
  SEO_ORPHAN_PAGE: () => [
    {
      message: 'A page listed in the sitemap is linked from no crawled page.',
      evidence: 'listed in sitemap.xml; linked from 0 pages',
    },
  ],
  SEO_DEEP_PAGE: () => [
    {
      message: 'Pages are more than 4 clicks from the home page (the deepest: 6).',
      evidence:
        'depth 6: / → /docs → /docs/guides → /docs/guides/setup → /docs/guides/setup/linux → /docs/guides/setup/linux/arm',
    },
  ],
  SEO_FEW_INLINKS: () => [
    {
      message: 'Pages are linked from only one other page.',
      evidence: 'linked only from /blog',
    },
  ],
  SEO_DUPLICATE_CONTENT: () => [
    {
      message: 'Pages have the same main text (simhash within 3 bits) and no canonical between them.',
      evidence: '2 pages, 412 words each',
      subject: '/features',
    },
  ],
  SEO_CONTENT_NEEDS_JS: () => [
    {
      message:
        '1 page shows its links or main text only once JavaScript has run (counts in the HTML response → after rendering).',
      evidence: '/: links 0 → 14, words of main text 3 → 388',
    },
  ],
  SEO_LINK_TEXT_GENERIC: (ctx) => {
    const evidence = `<a href="${ctx.rng.pick(['/blog', '/features', '/customers'])}" class="more">${ctx.rng.pick(['Read more', 'Click here', 'Learn more'])}</a>`;
    return [{ message: 'A link uses generic text.', evidence, subject: markupSubject(evidence, ctx.domain) }];
  },
  SEO_ANCHOR_NOT_CRAWLABLE: ({ domain }) => {
    const evidence = '<a href="javascript:void(0)" class="nav-toggle">Products</a>';
    return [
      {
        message: 'An anchor uses a javascript: URL, which crawlers cannot follow.',
        evidence,
        subject: markupSubject(evidence, domain),
      },
    ];
  },
  SEO_STRUCTURED_DATA_INVALID: ({ domain, site }) => {
    const evidence = `<script type="application/ld+json">{"@context":"https://schema.org","name":"${site.name}","url":"https://${site.host}/"}</script>`;
    return [
      { message: 'A JSON-LD block has no @type.', evidence, subject: `no @type ${markupSubject(evidence, domain)}` },
    ];
  },
  SEO_LLMS_TXT: ({ domain }) => [
    { message: 'No /llms.txt file is published.', evidence: 'GET /llms.txt → HTTP 404', urls: [`${domain}/llms.txt`] },
  ],
} satisfies EvidenceByCode;
