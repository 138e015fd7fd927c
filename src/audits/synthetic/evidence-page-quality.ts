import { TTFB_FAIL_MS, TTFB_WARN_MS, cachePolicySubject } from '../../analyzers/performance-site';
import { everywhere, markupSubject, resourceSubject, type EvidenceByCode } from './evidence-context';

/** Drafts whose evidence is one element's markup: that element is the subject, as in the real analyzers. */
function withMarkupSubject<T extends { evidence: string }>(domain: string, drafts: T[]): (T & { subject: string })[] {
  return drafts.map((d) => ({ ...d, subject: markupSubject(d.evidence, domain) }));
}

/** What the performance, accessibility and best-practice analyzers of the synthetic site report when they warn or fail. */
export const PAGE_QUALITY_EVIDENCE = {
  PERF_TTFB_SLOW: (ctx) => {
    const ms = ctx.status === 'fail' ? ctx.rng.int(820, 2400) : ctx.rng.int(610, 790);
    return [
      {
        message: `The server took ${ms} ms to send the first byte.`,
        evidence: `TTFB ${ms} ms`,
        subject: `over ${ctx.status === 'fail' ? TTFB_FAIL_MS : TTFB_WARN_MS} ms`,
      },
    ];
  },
  PERF_COMPRESSION_MISSING: (ctx) => {
    const bytes = ctx.rng.int(28_000, 160_000);
    return [
      {
        message: `A text/html response of ${bytes.toLocaleString('en-US')} bytes is sent without br or gzip compression.${everywhere(ctx)}`,
        evidence: `Content-Encoding: (absent); Content-Type: text/html; charset=utf-8; ${bytes} bytes`,
        subject: resourceSubject(ctx.urls[0]!, ctx.domain),
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
        subject: cachePolicySubject('public, max-age=600', undefined),
      },
    ];
  },
  PERF_PAGE_WEIGHT_HIGH: (ctx) => {
    const mib = ctx.status === 'fail' ? 4 + ctx.rng.int(0, 40) / 10 : 2.7 + ctx.rng.int(0, 12) / 10;
    return [
      {
        message: `The page and its resources weigh ${mib.toFixed(1)} MiB.`,
        evidence: `total ${mib.toFixed(1)} MiB; images ${(mib * 0.7).toFixed(1)} MiB`,
        subject: resourceSubject(ctx.urls[0]!, ctx.domain),
      },
    ];
  },
  PERF_RENDER_BLOCKING: (ctx) => [
    {
      message: `The script /js/vendor.bundle.js in the head loads synchronously (no async or defer) and blocks rendering.${everywhere(ctx)}`,
      evidence: '<script src="/js/vendor.bundle.js"></script>',
      subject: `script ${resourceSubject('/js/vendor.bundle.js', ctx.domain)}`,
    },
  ],
  PERF_IMG_UNSIZED: (ctx) => {
    const image = `/images/${ctx.rng.pick(['hero', 'team', 'product-shot', 'dashboard'])}.webp`;
    return withMarkupSubject(ctx.domain, [
      {
        message: `The image ${image} has no width and height.`,
        evidence: `<img src="${image}" alt="${ctx.site.name}" loading="lazy">`,
      },
    ]);
  },
  A11Y_IMG_ALT_MISSING: (ctx) =>
    withMarkupSubject(ctx.domain, [
      {
        message: 'Image without an alt attribute.',
        evidence: `<img src="/images/${ctx.rng.pick(['logo.svg', 'customer-logo-1.png', 'screenshot.png'])}" class="${ctx.rng.pick(['logo', 'img-fluid', 'brand'])}">`,
      },
    ]),
  A11Y_LANG_INVALID: (ctx) =>
    ctx.rng.chance(0.5)
      ? [
          {
            message: `The <html> element has no lang attribute.${everywhere(ctx)}`,
            evidence: '<html>',
            subject: 'missing',
          },
        ]
      : [
          {
            message: `The lang attribute "en_US" is not a valid BCP 47 language tag.${everywhere(ctx)}`,
            evidence: '<html lang="en_US">',
            subject: 'invalid en_us',
          },
        ],
  A11Y_FORM_LABEL_MISSING: (ctx) =>
    withMarkupSubject(ctx.domain, [
      {
        message: 'A form field has no label.',
        evidence: '<input type="email" name="email" placeholder="Your work email">',
      },
    ]),
  A11Y_CONTROL_NAME_MISSING: (ctx) =>
    withMarkupSubject(ctx.domain, [
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
    ]),
  A11Y_ZOOM_DISABLED: (ctx) => [
    {
      message: `The viewport prevents zooming: user-scalable=no, maximum-scale=1 (below 2).${everywhere(ctx)}`,
      evidence:
        '<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no">',
      subject: 'user-scalable maximum-scale',
    },
  ],
  A11Y_DUPLICATE_ID_ARIA: () => [
    {
      message: 'An id referenced by aria-labelledby is used twice on the page.',
      evidence: 'id="search-label" ×2; referenced by <input aria-labelledby="search-label">',
      subject: 'id=search-label',
    },
  ],
  A11Y_ARIA_INVALID: (ctx) => [
    ctx.rng.chance(0.5)
      ? {
          message: `An element with role="checkbox" lacks the required attribute aria-checked.${everywhere(ctx)}`,
          evidence: '<div class="toggle" role="checkbox" tabindex="0">',
          subject: `aria-required-attr ${markupSubject('<div class="toggle" role="checkbox" tabindex="0">', ctx.domain)}`,
        }
      : {
          message: `A dialog has no accessible name (no aria-label, aria-labelledby or title).${everywhere(ctx)}`,
          evidence: '<div class="modal" role="dialog" aria-modal="true">',
          subject: `aria-dialog-name ${markupSubject('<div class="modal" role="dialog" aria-modal="true">', ctx.domain)}`,
        },
  ],
  A11Y_HEADING_ORDER: (ctx) =>
    withMarkupSubject(ctx.domain, [
      {
        message: 'Heading level skipped: a level 4 heading follows a level 2 heading.',
        evidence: `<h4 class="card-title">${ctx.rng.pick(['Features', 'Pricing', 'Latest posts', 'Our customers'])}</h4>`,
      },
    ]),
  BP_DOCTYPE_CHARSET: (ctx) => [
    {
      message: `No character encoding is declared (no <meta charset>, no charset in Content-Type).${everywhere(ctx)}`,
      evidence: 'Content-Type: text/html',
      subject: 'charset missing',
    },
  ],
  BP_VIEWPORT_MISSING: (ctx) => [
    {
      message: `The page has no <meta name="viewport"> tag.${everywhere(ctx)}`,
      evidence: '(no <meta name="viewport"> element)',
      subject: 'missing',
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
} satisfies EvidenceByCode;
