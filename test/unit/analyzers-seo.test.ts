import assert from 'node:assert/strict';
import { ANALYZERS, runAnalyzers } from '../../src/analyzers';
import { parsePages } from '../../src/analyzers/parse';
import type { CrawlSnapshot, HeaderMap, RedirectHop, SitemapFetch, SnapshotPage } from '../../src/analyzers/snapshot';
import type { Analyzer, AnalyzerOutcome } from '../../src/analyzers/types';
import { brokenLink, llmsTxt, redirectChain } from '../../src/analyzers/seo-site';
import { lintRobotsTxt, robotsBlocked, robotsTxtInvalid } from '../../src/analyzers/seo-robots';
import { sitemapInvalid } from '../../src/analyzers/seo-sitemap';
import {
  canonicalInvalid,
  hreflangInvalid,
  isValidHreflang,
  linkHeaderCanonicals,
} from '../../src/analyzers/seo-links';
import { anchorNotCrawlable, linkTextGeneric, normalizeLinkText } from '../../src/analyzers/seo-anchors';
import { jsonLdMissingType, structuredDataInvalid, titleDuplicate } from '../../src/analyzers/seo-page';

const ORIGIN = 'https://example.com';
const HTML: HeaderMap = { 'content-type': 'text/html; charset=utf-8' };
const GOOD_TITLE = 'Example page title that is long enough';

function doc(head: string, body = '<h1>Hi</h1>'): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}

let n = 0;
function page(over: Partial<SnapshotPage> & { path?: string } = {}): SnapshotPage {
  const url = `${ORIGIN}${over.path ?? `/p${n++}`}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: HTML,
    body: doc(`<title>${GOOD_TITLE} ${n++}</title>`),
    ttfbMs: 100,
    bytes: 10_000,
    depth: 1,
    redirectChain: [],
    ...over,
  };
}

function robots(body: string, status = 200): CrawlSnapshot['robots'] {
  return { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status, body };
}

function run(a: Analyzer, pages: SnapshotPage[], extra: Partial<CrawlSnapshot> = {}): AnalyzerOutcome {
  const s: CrawlSnapshot = { origin: ORIGIN, robots: robots('', 404), pages, ...extra };
  return a.run(s, parsePages(s.pages));
}

describe('SEO site analyzers', () => {
  it('SEO_ROBOTS_TXT_INVALID: 404 and clean files pass; 5xx, unreachable, HTML, bad lines and size are flagged', () => {
    assert.equal(run(robotsTxtInvalid, [page()]).status, 'pass');
    assert.equal(
      run(robotsTxtInvalid, [page()], {
        robots: robots(
          'User-agent: *\nDisallow: /admin\nAllow: /\nSitemap: https://example.com/sitemap.xml\nCrawl-delay: 2\n# comment\n',
        ),
      }).status,
      'pass',
    );
    const e5 = run(robotsTxtInvalid, [page()], { robots: robots('', 503) });
    assert.equal(e5.status, 'fail');
    assert.match(e5.findings[0]!.evidence, /HTTP 503/);
    assert.equal(
      run(robotsTxtInvalid, [page()], {
        robots: { kind: 'unreachable', url: `${ORIGIN}/robots.txt`, error: 'ETIMEDOUT' },
      }).status,
      'fail',
    );
    assert.equal(run(robotsTxtInvalid, [page()], { robots: robots('<!doctype html><html>app</html>') }).status, 'fail');
    const bad = run(robotsTxtInvalid, [page()], {
      robots: robots('Disallow: /early\nUser-agent: *\nDisalow /x\nDisallow: admin\nSitemap: /sitemap.xml\n'),
    });
    assert.equal(bad.status, 'fail');
    assert.equal(bad.score, 0);
    assert.match(
      bad.findings[0]!.evidence,
      /line 1: Disallow: \/early \(rule before any User-agent line\); line 3: Disalow \/x \(syntax not understood\)/,
    );
    assert.deepEqual(bad.findings[0]!.urls, [`${ORIGIN}/robots.txt`]);
    const unknown = run(robotsTxtInvalid, [page()], { robots: robots('User-agent: *\nFoo: bar\n') });
    assert.equal(unknown.status, 'warn');
    assert.equal(unknown.score, 0.5);
    const big = run(robotsTxtInvalid, [page()], {
      robots: robots(`User-agent: *\n${'Disallow: /a\n'.repeat(45_000)}`),
    });
    assert.equal(big.status, 'warn');
    assert.match(big.findings[0]!.message, /500 KiB/);
    assert.deepEqual(
      lintRobotsTxt('User-agent: *\nDisallow: /a$b\n').map((p) => p.problem),
      ['"$" is only allowed at the end of a path'],
    );
  });

  it('SEO_ROBOTS_BLOCKED: fails for the home page or sitemap URLs, warns for pages linked from home', () => {
    const home = page({ path: '/', depth: 0 });
    assert.equal(run(robotsBlocked, [home]).status, 'pass'); // 404 robots: allow all
    assert.equal(run(robotsBlocked, [home], { robots: robots('User-agent: *\nDisallow: /admin\n') }).status, 'pass');
    assert.equal(run(robotsBlocked, [home], { robots: robots('', 500) }).status, 'not_applicable');
    const all = run(robotsBlocked, [home], { robots: robots('User-agent: Googlebot\nDisallow: /\n') });
    assert.equal(all.status, 'fail');
    assert.match(all.findings[0]!.message, /the home page for Googlebot/);
    assert.match(all.findings[0]!.evidence, /robots\.txt line 2: Disallow: \//);
    // Our bot may be allowed while search engines are not: the crawl still saw the page.
    const linked = run(robotsBlocked, [home, page({ path: '/shop/cart', depth: 1 })], {
      robots: robots('User-agent: *\nDisallow: /shop/\n'),
      robotsDisallowed: [{ url: `${ORIGIN}/private/x`, depth: 3 }],
    });
    assert.equal(linked.status, 'warn');
    assert.deepEqual(linked.findings[0]!.urls, [`${ORIGIN}/shop/cart`]);
    const sitemap = run(robotsBlocked, [home], {
      robots: robots('User-agent: *\nDisallow: /blog/\n'),
      sitemaps: [
        {
          url: `${ORIGIN}/sitemap.xml`,
          source: 'default',
          status: 200,
          root: 'urlset',
          locCount: 2,
          locs: [`${ORIGIN}/`, `${ORIGIN}/blog/post`],
        },
      ],
      robotsDisallowed: [{ url: `${ORIGIN}/blog/other`, depth: 2, inSitemap: true }],
    });
    assert.equal(sitemap.status, 'fail');
    assert.match(sitemap.findings[0]!.message, /2 URLs listed in the sitemap/);
  });

  it('SEO_SITEMAP_INVALID: n/a without facts; flags missing, malformed, oversized and bad entries', () => {
    const ok: SitemapFetch = {
      url: `${ORIGIN}/sitemap.xml`,
      source: 'robots',
      status: 200,
      root: 'urlset',
      locCount: 2,
      locs: [`${ORIGIN}/`, `${ORIGIN}/a`],
    };
    const home = page({ path: '/', depth: 0 });
    const a = page({ path: '/a' });
    assert.equal(run(sitemapInvalid, [home]).status, 'not_applicable');
    assert.equal(
      run(sitemapInvalid, [home, a], {
        sitemaps: [ok, { url: `${ORIGIN}/sitemap.xml`, source: 'default', status: 404 }],
      }).status,
      'pass',
    );
    const missing = run(sitemapInvalid, [home], {
      sitemaps: [{ url: `${ORIGIN}/sitemap.xml`, source: 'default', status: 404 }],
    });
    assert.equal(missing.status, 'fail');
    assert.match(missing.findings[0]!.evidence, /sitemap\.xml → HTTP 404/);
    assert.equal(run(sitemapInvalid, [home], { sitemaps: [] }).status, 'fail');
    const malformed = run(sitemapInvalid, [home], {
      sitemaps: [ok, { ...ok, url: `${ORIGIN}/s2.xml`, root: null, xmlError: 'Unexpected close tag at line 3' }],
    });
    assert.equal(malformed.status, 'fail');
    assert.ok(malformed.findings.some((f) => /not well-formed/.test(f.message) && f.evidence.includes('line 3')));
    const html = run(sitemapInvalid, [home], { sitemaps: [{ ...ok, root: 'html' }] });
    assert.equal(html.status, 'fail');
    const huge = run(sitemapInvalid, [home, a], { sitemaps: [{ ...ok, locCount: 50_001 }] });
    assert.ok(huge.findings.some((f) => /50,001 URLs/.test(f.message)));
    const broken = run(sitemapInvalid, [home, a], {
      sitemaps: [ok, { url: `${ORIGIN}/news.xml`, source: 'robots', status: 500 }],
    });
    assert.equal(broken.status, 'fail');
    // Entries that answer non-200 (crawled, or link-checked) or are noindex.
    const gone = page({ path: '/a', status: 404 });
    const noidx = page({ path: '/n', body: doc('<title>x</title><meta name="robots" content="noindex">') });
    const entries = run(sitemapInvalid, [home, gone, noidx], {
      sitemaps: [{ ...ok, locCount: 4, locs: [`${ORIGIN}/`, `${ORIGIN}/a`, `${ORIGIN}/n`, `${ORIGIN}/c`] }],
      linkChecks: [{ url: `${ORIGIN}/c`, status: 410, foundOn: [] }],
    });
    assert.equal(entries.status, 'warn');
    assert.deepEqual(
      entries.findings.map((f) => f.urls),
      [[`${ORIGIN}/a`, `${ORIGIN}/c`], [`${ORIGIN}/n`]],
    );
    assert.match(entries.findings[0]!.evidence, /lists https:\/\/example\.com\/a \(HTTP 404\)/);
  });

  it('SEO_LLMS_TXT: n/a without the fetch, pass when present, fail when absent or an HTML fallback', () => {
    const url = `${ORIGIN}/llms.txt`;
    assert.equal(run(llmsTxt, [page()]).status, 'not_applicable');
    assert.equal(
      run(llmsTxt, [page()], {
        llmsTxt: { kind: 'fetched', url, status: 200, contentType: 'text/markdown', bodyStart: '# Example\n> A site' },
      }).status,
      'pass',
    );
    const absent = run(llmsTxt, [page()], { llmsTxt: { kind: 'fetched', url, status: 404 } });
    assert.equal(absent.status, 'fail');
    assert.deepEqual(absent.findings[0]!.urls, [url]);
    assert.equal(
      run(llmsTxt, [page()], {
        llmsTxt: { kind: 'fetched', url, status: 200, contentType: 'text/html', bodyStart: '<!doctype html>' },
      }).status,
      'fail',
    );
  });

  it('SEO_REDIRECT_CHAIN: one hop passes, two warn, three fail, loops fail', () => {
    const hop = (url: string, status = 301): RedirectHop => ({ url, status, location: null });
    const one = page({
      url: 'http://example.com/a',
      finalUrl: `${ORIGIN}/a`,
      redirectChain: [hop('http://example.com/a')],
    });
    const two = page({
      url: 'http://example.com/b',
      finalUrl: `${ORIGIN}/b/`,
      redirectChain: [hop('http://example.com/b'), hop(`${ORIGIN}/b`)],
    });
    assert.equal(run(redirectChain, [page(), one]).status, 'pass');
    const w = run(redirectChain, [page(), two]);
    assert.equal(w.status, 'warn');
    assert.equal(w.score, 0.75);
    assert.equal(w.findings[0]!.evidence, `http://example.com/b (301) → ${ORIGIN}/b (301) → ${ORIGIN}/b/ (200)`);
    const three = page({
      url: `${ORIGIN}/c`,
      finalUrl: `${ORIGIN}/f`,
      redirectChain: [hop(`${ORIGIN}/c`), hop(`${ORIGIN}/d`), hop(`${ORIGIN}/e`)],
    });
    assert.equal(run(redirectChain, [three]).status, 'fail');
    const loop = page({
      url: `${ORIGIN}/x`,
      finalUrl: `${ORIGIN}/x`,
      status: 301,
      redirectChain: [hop(`${ORIGIN}/x`), hop(`${ORIGIN}/y`)],
    });
    const l = run(redirectChain, [loop]);
    assert.equal(l.status, 'fail');
    assert.match(l.findings[0]!.message, /loop/);
  });

  it('SEO_BROKEN_LINK: crawled 4xx/5xx pages and failed link checks, with the pages linking to them', () => {
    assert.equal(run(brokenLink, [page({ path: '/', depth: 0 })]).status, 'not_applicable');
    const linked = { foundOn: [`${ORIGIN}/`] };
    assert.equal(run(brokenLink, [page({ path: '/', depth: 0 }), page(linked)]).status, 'pass');
    const out = run(
      brokenLink,
      [page({ path: '/', depth: 0 }), page({ path: '/gone', status: 404, ...linked }), page(linked)],
      {
        linkChecks: [
          { url: `${ORIGIN}/img/logo.png`, status: 500, foundOn: [`${ORIGIN}/`, `${ORIGIN}/a`], kind: 'resource' },
          { url: `${ORIGIN}/ok`, status: 200, foundOn: [`${ORIGIN}/`] },
          { url: `${ORIGIN}/timeout`, status: null, foundOn: [`${ORIGIN}/`] },
          { url: 'https://other.org/gone', status: 404, foundOn: [`${ORIGIN}/`] },
        ],
      },
    );
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 0.4); // 3 broken of 5 targets (another site's page counts when it is gone)
    assert.deepEqual(out.findings[0]!.urls, [`${ORIGIN}/img/logo.png`, `${ORIGIN}/`, `${ORIGIN}/a`]);
    assert.match(out.findings[0]!.message, /resource target answers HTTP 500.*linked from 2 pages/);
    assert.match(out.findings[1]!.evidence, /\/gone → HTTP 404; linked from https:\/\/example\.com\//);
    const external = out.findings.find((f) => f.urls[0] === 'https://other.org/gone')!;
    assert.match(external.message, /^A link to another site answers HTTP 404/);
  });

  it('SEO_BROKEN_LINK: another site counts as broken only when it says its page is gone (404, 410)', () => {
    const linked = { foundOn: [`${ORIGIN}/`] };
    const checks = [403, 429, 500, 410].map((status) => ({
      url: `https://other.org/${status}`,
      status,
      foundOn: [`${ORIGIN}/`],
    }));
    const out = run(brokenLink, [page({ path: '/', depth: 0 }), page(linked)], { linkChecks: checks });
    assert.deepEqual(
      out.findings.map((f) => f.urls[0]),
      ['https://other.org/410'],
    );
  });

  it('SEO_BROKEN_LINK: past 20 broken targets the rest fold into the last finding, which names every one', () => {
    const linkChecks = Array.from({ length: 45 }, (_, i) => ({
      url: `${ORIGIN}/gone/${i}`,
      status: 404,
      foundOn: [`${ORIGIN}/`],
    }));
    const out = run(brokenLink, [page({ path: '/', depth: 0 })], { linkChecks });
    assert.equal(out.findings.length, 20);
    const named = new Set(out.findings.flatMap((f) => f.urls).filter((u) => u.includes('/gone/')));
    assert.equal(named.size, 45);
    assert.match(out.findings[19]!.message, /^26 more broken targets at 27 URLs, for example: /);
  });
});

describe('SEO link and markup analyzers', () => {
  it('SEO_TITLE_DUPLICATE: duplicates fail, lengths outside 30–60 warn, shared canonicals are one page', () => {
    const t = (title: string, extra = '') => page({ body: doc(`<title>${title}</title>${extra}`) });
    assert.equal(run(titleDuplicate, [t(GOOD_TITLE), t(`${GOOD_TITLE} 2`)]).status, 'pass');
    const dup = run(titleDuplicate, [t(GOOD_TITLE), t(GOOD_TITLE), t(`${GOOD_TITLE} 3`)]);
    assert.equal(dup.status, 'fail');
    assert.equal(dup.findings[0]!.urls.length, 2);
    assert.equal(dup.findings[0]!.evidence, `<title>${GOOD_TITLE}</title>`);
    const short = run(titleDuplicate, [t('Home')]);
    assert.equal(short.status, 'warn');
    assert.match(short.findings[0]!.message, /only 4 characters/);
    assert.equal(run(titleDuplicate, [t('x'.repeat(61))]).status, 'warn');
    const canon = `<link rel="canonical" href="${ORIGIN}/list">`;
    assert.equal(run(titleDuplicate, [t(GOOD_TITLE, canon), t(GOOD_TITLE, canon)]).status, 'pass');
    assert.equal(run(titleDuplicate, [page({ body: doc('') })]).status, 'not_applicable');
  });

  it('SEO_CANONICAL_INVALID: conflicting, relative, to root, to a non-200', () => {
    const c = (head: string, over: Partial<SnapshotPage> & { path?: string } = {}) =>
      page({ body: doc(`<title>t</title>${head}`), ...over });
    assert.equal(run(canonicalInvalid, [c('')]).status, 'not_applicable');
    assert.equal(
      run(canonicalInvalid, [c(`<link rel="canonical" href="${ORIGIN}/a">`, { path: '/a' })]).status,
      'pass',
    );
    const conflict = run(canonicalInvalid, [
      c(`<link rel="canonical" href="${ORIGIN}/a"><link rel="canonical" href="${ORIGIN}/b">`),
    ]);
    assert.equal(conflict.status, 'fail');
    assert.match(conflict.findings[0]!.message, /2 conflicting/);
    const rel = run(canonicalInvalid, [c('<link rel="canonical" href="/a">', { path: '/a' })]);
    assert.equal(rel.status, 'fail');
    assert.equal(rel.findings[0]!.evidence, '<link rel="canonical" href="/a">');
    assert.match(
      run(canonicalInvalid, [c(`<link rel="canonical" href="${ORIGIN}/">`, { path: '/deep/page' })]).findings[0]!
        .message,
      /points to the home page/,
    );
    assert.equal(run(canonicalInvalid, [c(`<link rel="canonical" href="${ORIGIN}/">`, { path: '/' })]).status, 'pass');
    const to404 = run(canonicalInvalid, [
      c(`<link rel="canonical" href="${ORIGIN}/old">`, { path: '/new' }),
      page({ path: '/old', status: 404 }),
    ]);
    assert.equal(to404.status, 'fail');
    assert.match(to404.findings[0]!.evidence, /→ HTTP 404/);
    const toRedirect = run(canonicalInvalid, [
      c(`<link rel="canonical" href="${ORIGIN}/r">`, { path: '/x' }),
      page({
        url: `${ORIGIN}/r`,
        finalUrl: `${ORIGIN}/r/`,
        redirectChain: [{ url: `${ORIGIN}/r`, status: 301, location: '/r/' }],
      }),
    ]);
    assert.match(toRedirect.findings[0]!.message, /redirects \(HTTP 301\)/);
    // A Link header canonical conflicting with the markup.
    const hdr = run(canonicalInvalid, [
      c(`<link rel="canonical" href="${ORIGIN}/a">`, {
        path: '/a',
        headers: { ...HTML, link: `<${ORIGIN}/b>; rel="canonical"` },
      }),
    ]);
    assert.equal(hdr.status, 'fail');
    assert.deepEqual(linkHeaderCanonicals(['<https://a/x>; rel=preload, <https://a/y>; rel="canonical"']), [
      'https://a/y',
    ]);
  });

  it('SEO_HREFLANG_INVALID: codes, absolute hrefs and return links', () => {
    for (const ok of ['en', 'en-GB', 'x-default', 'zh-Hant-TW', 'es-419', 'pt-br']) assert.ok(isValidHreflang(ok), ok);
    for (const bad of ['en_US', 'en-UK', 'english', 'xx', '', 'de-ZZ']) assert.ok(!isValidHreflang(bad), bad);
    const alt = (lang: string, href: string) => `<link rel="alternate" hreflang="${lang}" href="${href}">`;
    const en = page({
      path: '/en/',
      body: doc(`<title>t</title>${alt('en', `${ORIGIN}/en/`)}${alt('de', `${ORIGIN}/de/`)}`),
    });
    const de = page({
      path: '/de/',
      body: doc(`<title>t</title>${alt('de', `${ORIGIN}/de/`)}${alt('en', `${ORIGIN}/en/`)}`),
    });
    assert.equal(run(hreflangInvalid, [en, de]).status, 'pass');
    assert.equal(run(hreflangInvalid, [page()]).status, 'not_applicable');
    const deNoReturn = page({ path: '/de/', body: doc('<title>t</title>') });
    const noReturn = run(hreflangInvalid, [en, deNoReturn]);
    assert.equal(noReturn.status, 'fail');
    assert.equal(noReturn.score, 0);
    assert.match(noReturn.findings[0]!.message, /does not link back/);
    assert.equal(noReturn.findings[0]!.evidence, `<link rel="alternate" hreflang="de" href="${ORIGIN}/de/">`);
    // Alternates that were not crawled cannot be checked for a return link.
    assert.equal(run(hreflangInvalid, [en]).status, 'pass');
    const badCode = run(hreflangInvalid, [
      page({ body: doc(`<title>t</title>${alt('en_US', `${ORIGIN}/us/`)}${alt('fr', '/fr/')}`) }),
    ]);
    assert.deepEqual(
      badCode.findings.map((f) => f.message),
      ['"en_US" is not a valid hreflang language code.', 'An hreflang link does not use an absolute URL.'],
    );
  });

  it('SEO_LINK_TEXT_GENERIC: generic texts fail case-insensitively and trimmed', () => {
    assert.equal(normalizeLinkText('  Read   MORE » '), 'read more');
    const body = (links: string) => page({ body: doc('<title>t</title>', links) });
    assert.equal(
      run(linkTextGeneric, [body('<a href="/pricing">Pricing guide</a><a href="#top">here</a>')]).status,
      'pass',
    );
    assert.equal(run(linkTextGeneric, [body('<p>no links</p>')]).status, 'not_applicable');
    const bad = run(linkTextGeneric, [
      body('<a href="/a"> Click Here </a><a href="/b">Learn more…</a><a href="/c" aria-label="Pricing">more</a>'),
    ]);
    assert.equal(bad.status, 'fail');
    assert.deepEqual(
      bad.findings.map((f) => f.evidence),
      ['<a href="/a"> Click Here </a>', '<a href="/b">Learn more…</a>'],
    );
  });

  it('SEO_ANCHOR_NOT_CRAWLABLE: anchors without href or with javascript:', () => {
    const body = (links: string) => page({ body: doc('<title>t</title>', links) });
    assert.equal(
      run(anchorNotCrawlable, [body('<a href="/a">A</a><a name="top"></a><a role="button">Menu</a>')]).status,
      'pass',
    );
    assert.equal(run(anchorNotCrawlable, [body('<p>x</p>')]).status, 'not_applicable');
    const bad = run(anchorNotCrawlable, [
      body(
        '<a href="/ok">ok</a><a onclick="go()">Products</a><a href="JavaScript:void(0)">Menu</a><a href="#" onclick="window.location=\'/x\'">X</a>',
      ),
    ]);
    assert.equal(bad.status, 'fail');
    // As Lighthouse: `JavaScript:void(0)` (its pattern is case-sensitive) and `#` with a handler pass.
    assert.deepEqual(
      bad.findings.map((f) => f.message),
      ['A link has no href and works by script, so crawlers cannot follow it.'],
    );
    assert.equal(bad.findings[0]!.evidence, '<a onclick="go()">Products</a>');
  });

  it('SEO_STRUCTURED_DATA_INVALID: n/a without JSON-LD; fails on bad JSON or a missing @type', () => {
    const ld = (json: string) =>
      page({ body: doc(`<title>t</title><script type="application/ld+json">${json}</script>`) });
    assert.equal(run(structuredDataInvalid, [page()]).status, 'not_applicable');
    assert.equal(
      run(structuredDataInvalid, [ld('{"@context":"https://schema.org","@type":"Organization","name":"X"}')]).status,
      'pass',
    );
    assert.equal(
      run(structuredDataInvalid, [
        ld('{"@context":"https://schema.org","@graph":[{"@type":"WebSite"},{"@type":"Organization"}]}'),
      ]).status,
      'pass',
    );
    const broken = run(structuredDataInvalid, [ld('{"@type":"Organization",}')]);
    assert.equal(broken.status, 'fail');
    assert.match(broken.findings[0]!.message, /not valid JSON/);
    assert.match(broken.findings[0]!.evidence, /<script type="application\/ld\+json">/);
    assert.match(
      run(structuredDataInvalid, [ld('{"@context":"https://schema.org","name":"X"}')]).findings[0]!.message,
      /no @type/,
    );
    assert.ok(jsonLdMissingType([{ '@type': 'A' }, { name: 'b' }]));
    assert.ok(!jsonLdMissingType({ '@type': ['A', 'B'], author: { name: 'nested needs none' } }));
  });
});

describe('new analyzers in the registry', () => {
  it('run through runAnalyzers on a full snapshot without errors, with findings citing URLs', () => {
    const codes = ANALYZERS.map((a) => a.code);
    const mine = [
      'SEO_ROBOTS_BLOCKED',
      'SEO_ROBOTS_TXT_INVALID',
      'SEO_SITEMAP_INVALID',
      'SEO_TITLE_DUPLICATE',
      'SEO_CANONICAL_INVALID',
      'SEO_HREFLANG_INVALID',
      'SEO_BROKEN_LINK',
      'SEO_REDIRECT_CHAIN',
      'SEO_LINK_TEXT_GENERIC',
      'SEO_ANCHOR_NOT_CRAWLABLE',
      'SEO_STRUCTURED_DATA_INVALID',
      'SEO_LLMS_TXT',
      'PERF_TTFB_SLOW',
      'PERF_CACHE_WEAK',
      'PERF_PAGE_WEIGHT_HIGH',
      'PERF_RENDER_BLOCKING',
      'A11Y_FORM_LABEL_MISSING',
      'A11Y_CONTROL_NAME_MISSING',
      'A11Y_DUPLICATE_ID_ARIA',
      'BP_SOFT_404',
    ];
    for (const c of mine) assert.ok(codes.includes(c as never), c);
    const body = doc(
      '<title>Home</title><script src="/a.js"></script><script type="application/ld+json">{</script>',
      '<a href="/x">here</a><a onclick="f()">menu</a><a href="/y"></a><input name="q"><span id="d">a</span><span id="d">b</span><button aria-describedby="d">Go</button>',
    );
    const s: CrawlSnapshot = {
      origin: ORIGIN,
      robots: robots('User-agent: *\nDisallow: /x\nOops\n'),
      pages: [
        page({ path: '/', depth: 0, body, ttfbMs: 900 }),
        page({ path: '/x', status: 404, foundOn: [`${ORIGIN}/`] }),
      ],
      resources: [
        { url: `${ORIGIN}/a.js`, status: 200, headers: { 'content-type': 'text/javascript' }, bytes: 5_000_000 },
      ],
      sitemaps: [{ url: `${ORIGIN}/sitemap.xml`, source: 'default', status: 404 }],
      linkChecks: [{ url: `${ORIGIN}/y`, status: 500, foundOn: [`${ORIGIN}/`] }],
      llmsTxt: { kind: 'fetched', url: `${ORIGIN}/llms.txt`, status: 404 },
      notFoundProbe: { kind: 'fetched', url: `${ORIGIN}/nope-123`, finalUrl: `${ORIGIN}/nope-123`, status: 200, body },
    };
    const errors: string[] = [];
    const r = runAnalyzers(s, { onError: (code) => errors.push(code) });
    assert.deepEqual(errors, []);
    const status = new Map(r.analyzers.map((a) => [a.code, a.status]));
    for (const c of mine.filter(
      (c) => !['SEO_HREFLANG_INVALID', 'SEO_CANONICAL_INVALID', 'SEO_REDIRECT_CHAIN'].includes(c),
    )) {
      assert.ok(status.get(c) === 'fail' || status.get(c) === 'warn', `${c}: ${status.get(c)}`);
    }
    assert.equal(status.get('SEO_HREFLANG_INVALID'), 'not_applicable');
    assert.equal(status.get('SEO_REDIRECT_CHAIN'), 'pass');
    for (const f of r.findings) {
      assert.ok(f.urls.length > 0 && f.evidence.length > 0 && f.evidence.length <= 300, f.analyzer);
      for (const u of f.urls) assert.ok(u.startsWith(ORIGIN), u);
    }
  });
});
