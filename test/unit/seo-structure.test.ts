import assert from 'node:assert/strict';
import { ANALYZERS, runAnalyzers } from '../../src/analyzers';
import { ANALYZER_CODES } from '../../src/analyzers/catalog';
import { parsePage, parsePages } from '../../src/analyzers/parse';
import type { CrawlSnapshot, HeaderMap, SitemapFetch, SnapshotPage } from '../../src/analyzers/snapshot';
import type { Analyzer, AnalyzerOutcome } from '../../src/analyzers/types';
import { deepPage, fewInlinks, orphanPage, pathEvidence } from '../../src/analyzers/seo-structure';
import { duplicateContent, mainText } from '../../src/analyzers/seo-structure-duplicates';
import { internalRedirectLink } from '../../src/analyzers/seo-structure-redirects';

const ORIGIN = 'https://example.com';
const HTML: HeaderMap = { 'content-type': 'text/html; charset=utf-8' };
const NOINDEX = '<meta name="robots" content="noindex, follow">';

function doc(head = '', body = '<h1>Hi</h1>'): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A page</title>${head}</head><body>${body}</body></html>`;
}

const abs = (path: string) => (path.startsWith('http') ? path : `${ORIGIN}${path}`);

/** A crawled page at `path` (200 HTML); `from` sets foundOn (absolute) and linkedFrom to its length. */
function page(path: string, over: Partial<SnapshotPage> & { from?: string[] } = {}): SnapshotPage {
  const { from, ...rest } = over;
  const linked = from ? { foundOn: from.map(abs), linkedFrom: from.length } : {};
  return {
    url: abs(path),
    finalUrl: abs(path),
    status: 200,
    headers: HTML,
    body: doc(),
    ttfbMs: 100,
    bytes: 10_000,
    depth: path === '/' ? 0 : 1,
    redirectChain: [],
    ...linked,
    ...rest,
  };
}

/** A crawled URL that redirected (first hop `status`) to `to`. */
function redirected(path: string, to: string, status: number, over: Partial<SnapshotPage> & { from?: string[] } = {}) {
  return page(path, {
    finalUrl: abs(to),
    redirectChain: [{ url: abs(path), status, location: abs(to) }],
    ...over,
  });
}

function sitemap(locs: string[], root = 'urlset'): SitemapFetch {
  return { url: `${ORIGIN}/sitemap.xml`, source: 'default', status: 200, root, locs: locs.map(abs) };
}

function run(a: Analyzer, pages: SnapshotPage[], extra: Partial<CrawlSnapshot> = {}): AnalyzerOutcome {
  const s: CrawlSnapshot = {
    origin: ORIGIN,
    robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
    pages,
    ...extra,
  };
  return a.run(s, parsePages(s.pages));
}

const HOME = page('/');

describe('site structure analyzers', () => {
  it('registers the five rules in catalog order, after SEO_REDIRECT_CHAIN', () => {
    const codes = ANALYZERS.map((a) => a.code);
    const at = codes.indexOf('SEO_REDIRECT_CHAIN');
    assert.deepEqual(codes.slice(at + 1, at + 6), [
      'SEO_INTERNAL_REDIRECT_LINK',
      'SEO_ORPHAN_PAGE',
      'SEO_DEEP_PAGE',
      'SEO_FEW_INLINKS',
      'SEO_DUPLICATE_CONTENT',
    ]);
    assert.deepEqual(
      codes,
      [...ANALYZER_CODES].filter((c) => codes.includes(c)),
    );
    const result = runAnalyzers({
      origin: ORIGIN,
      robots: { kind: 'fetched', url: '', status: 404, body: '' },
      pages: [HOME],
    });
    const mine = result.analyzers.filter((r) => (codes.slice(at + 1, at + 6) as string[]).includes(r.code));
    assert.deepEqual(
      mine.map((r) => [r.code, r.status, r.severity]),
      [
        ['SEO_INTERNAL_REDIRECT_LINK', 'pass', 'low'],
        ['SEO_ORPHAN_PAGE', 'pass', 'medium'],
        ['SEO_DEEP_PAGE', 'pass', 'low'],
        ['SEO_FEW_INLINKS', 'pass', 'low'],
        ['SEO_DUPLICATE_CONTENT', 'pass', 'medium'],
      ],
    );
  });

  it('is not applicable without an indexable HTML page', () => {
    const pages = [
      page('/', { body: doc(NOINDEX) }),
      page('/file.pdf', { headers: { 'content-type': 'application/pdf' } }),
    ];
    for (const a of [orphanPage, deepPage, fewInlinks, internalRedirectLink, duplicateContent])
      assert.deepEqual(run(a, pages, { sitemaps: [sitemap(['/file.pdf'])] }), {
        status: 'not_applicable',
        score: 0,
        findings: [],
      });
  });
});

describe('SEO_ORPHAN_PAGE', () => {
  const pages = [
    page('/', { linkedFrom: 0 }), // the home page is never an orphan, even listed and unlinked
    page('/a', { from: ['/'] }),
    page('/linked-by-foundon', { foundOn: [abs('/a')] }), // no linkedFrom: foundOn says it is linked
    page('/orphan', { depth: null, foundOn: [], linkedFrom: 0 }),
    redirected('/moved', '/new', 301, { depth: null, foundOn: [], linkedFrom: 0 }), // listed as requested
    page('/noindex-orphan', { depth: null, linkedFrom: 0, body: doc(NOINDEX) }), // submitted, so still an orphan
    page('/gone', { depth: null, linkedFrom: 0, status: 404 }),
    page('/dir/', { depth: null, linkedFrom: 0 }), // linked as /dir/index.html
    page('/only-in-index', { depth: null, linkedFrom: 0 }), // a <sitemapindex> entry is a sitemap, not a page
    page('/not-listed', { depth: null, linkedFrom: 0 }),
  ];
  const sitemaps = [
    sitemap(['/', '/a', '/linked-by-foundon', '/orphan#top', '/moved', '/noindex-orphan', '/gone', '/dir/']),
    { ...sitemap(['/only-in-index'], 'sitemapindex'), url: `${ORIGIN}/sitemap-index.xml` },
    sitemap(['https://other.example/orphan']),
  ];
  const indexAliases = [{ url: abs('/dir/index.html'), aliasOf: abs('/dir/'), foundOn: [abs('/a')] }];

  it('lists every sitemap URL that answers 200 HTML and that no crawled page links to', () => {
    const out = run(orphanPage, pages, { sitemaps, indexAliases });
    assert.equal(out.status, 'fail');
    // 9 HTML pages (the 404 is not one), 3 orphans.
    assert.equal(out.score, 1 - 3 / 9);
    assert.deepEqual(out.findings, [
      {
        message: '3 pages listed in the sitemap are not linked from any crawled page.',
        evidence:
          '/orphan, /new, /noindex-orphan: listed in https://example.com/sitemap.xml, linked from no crawled page',
        urls: [abs('/orphan'), abs('/new'), abs('/noindex-orphan')],
      },
    ]);
  });

  it('passes without a sitemap, and when every listed page is linked', () => {
    assert.deepEqual(run(orphanPage, pages, { indexAliases }), { status: 'pass', score: 1, findings: [] });
    assert.equal(
      run(orphanPage, [HOME, page('/a', { from: ['/'] })], { sitemaps: [sitemap(['/', '/a'])] }).status,
      'pass',
    );
  });
});

describe('SEO_DEEP_PAGE', () => {
  // A chain from the home page, 6 clicks deep; each page's first referrer is its breadth-first parent.
  const chain = ['/', '/a', '/a/b', '/a/b/c', '/a/b/c/d', '/a/b/c/d/e', '/a/b/c/d/e/f'];
  const pages = chain.map((path, depth) =>
    depth === 0 ? HOME : page(path, { depth, from: [chain[depth - 1]!, '/elsewhere'] }),
  );

  it('lists indexable pages more than 4 clicks deep, shallowest first, with the path to the deepest', () => {
    const out = run(deepPage, [
      ...pages,
      page('/x', { depth: 5, from: ['/a/b/c/d'], body: doc(NOINDEX) }), // noindex: not deep
      page('/y', { depth: 7, from: ['/a/b/c/d/e/f'], headers: { ...HTML, 'x-robots-tag': 'noindex' } }),
      page('/z', { depth: null, linkedFrom: 0 }), // sitemap-only: no depth
      page('/e2', { depth: 5, from: ['/a/b/c/d'] }),
    ]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 1 - 3 / 9); // 9 indexable pages (/x, /y noindex), 3 deep
    assert.deepEqual(out.findings, [
      {
        message: '3 indexable pages are more than 4 clicks from the home page; the deepest is 6 clicks away.',
        evidence: 'depth 6: / → /a → /a/b → /a/b/c → /a/b/c/d → /a/b/c/d/e → /a/b/c/d/e/f',
        urls: [abs('/a/b/c/d/e'), abs('/e2'), abs('/a/b/c/d/e/f')],
      },
    ]);
  });

  it('passes at 4 clicks, and marks a path it cannot follow back with "…"', () => {
    assert.deepEqual(run(deepPage, pages.slice(0, 5)), { status: 'pass', score: 1, findings: [] });
    const lost = run(deepPage, [HOME, page('/deep', { depth: 5, from: ['/uncrawled'] })]);
    assert.equal(lost.findings[0]!.evidence, 'depth 5: … → /uncrawled → /deep');
  });

  it('elides the middle of a path too long for the evidence', () => {
    const long = ['/', ...[1, 2, 3, 4, 5, 6].map((i) => `/${'section-'.repeat(6)}${i}`)];
    const text = pathEvidence(6, long);
    assert.ok(text.length <= 300, text);
    assert.ok(text.startsWith('depth 6: / → … → '), text);
    assert.ok(text.endsWith(long[6]!), text);
  });
});

describe('SEO_FEW_INLINKS', () => {
  it('lists indexable pages linked from exactly one other crawled page, never the home page', () => {
    const out = run(fewInlinks, [
      page('/', { linkedFrom: 1, foundOn: [abs('/a')] }), // the home page is exempt
      page('/a', { from: ['/'] }),
      page('/b', { from: ['/', '/a', '/d'] }),
      page('/c', { from: ['/a'], body: doc(NOINDEX) }), // not indexable
      page('/d', { depth: 2, from: ['/a'] }),
      page('/e', { depth: 2, from: ['/a'] }), // also reached through /old: 2 links in all
      redirected('/old', '/e', 301, { depth: 2, from: ['/b'] }),
      page('/orphan', { depth: null, linkedFrom: 0 }), // no link at all: SEO_ORPHAN_PAGE's
    ]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 1 - 2 / 6); // /, /a, /b, /d, /e, /orphan
    assert.deepEqual(out.findings, [
      {
        message: '2 indexable pages are linked from only one other crawled page.',
        evidence: '/a is linked only from /; /d only from /a',
        urls: [abs('/a'), abs('/d')],
      },
    ]);
  });

  it('passes a home page alone', () => {
    assert.deepEqual(run(fewInlinks, [HOME]), { status: 'pass', score: 1, findings: [] });
  });
});

describe('SEO_INTERNAL_REDIRECT_LINK', () => {
  const fr = '<link rel="alternate" hreflang="fr" href="https://example.com/fr-old">';
  const pages = [
    page('/', { body: doc('<link rel="canonical" href="https://example.com/">') }),
    page('/a', { from: ['/'], body: doc(fr) }),
    page('/b', { depth: 2, from: ['/a'], body: doc(`<link rel="canonical" href="/old">${fr}`) }),
    page('/c', {
      from: ['/'],
      body: doc(
        '<link rel="canonical" href="/b"><link rel="alternate" hreflang="de" href="https://other.example/de-old">',
      ),
    }),
    redirected('/old', '/new', 301, { from: ['/', '/a'] }),
    redirected('/fr-old', '/fr/', 308, { depth: null, linkedFrom: 0, foundOn: [] }),
    redirected('/out', 'https://other.example/', 302, { depth: 3, from: ['/b'] }),
    redirected('/many', '/many/', 301, {
      depth: 2,
      foundOn: Array.from({ length: 10 }, (_, i) => abs(`/p${i}`)),
      linkedFrom: 12,
    }),
  ];

  it('reports each redirecting target once, with the pages pointing at it by link, canonical or hreflang', () => {
    const out = run(internalRedirectLink, pages);
    assert.equal(out.status, 'fail');
    // 8 HTML pages by served URL (every record answers 200 HTML); /, /a and /b point at redirects
    // (/p0–/p9 were not crawled here).
    assert.equal(out.score, 1 - 3 / 8);
    assert.deepEqual(
      out.findings.map((f) => f.subject),
      ['/many', '/old', '/fr-old', '/out'],
    );
    assert.deepEqual(out.findings[1], {
      message:
        '/old redirects (HTTP 301) to https://example.com/new; it is linked from 2 pages and named as the canonical URL of 1 page.',
      evidence: 'https://example.com/old (301) → https://example.com/new (200); linked from /, /a; canonical of /b',
      urls: [abs('/'), abs('/a'), abs('/b')],
      subject: '/old',
    });
    assert.deepEqual(out.findings[2], {
      message:
        '/fr-old redirects (HTTP 308) to https://example.com/fr/; it is named as an hreflang alternate on 2 pages.',
      evidence: 'https://example.com/fr-old (308) → https://example.com/fr/ (200); hreflang on /a, /b',
      urls: [abs('/a'), abs('/b')],
      subject: '/fr-old',
    });
    assert.equal(
      out.findings[3]!.message,
      '/out redirects (HTTP 302) to https://other.example/; it is linked from 1 page.',
    );
    assert.deepEqual(out.findings[3]!.urls, [abs('/b')]);
    // The crawl keeps the first 10 referrers; the message gives the exact count.
    assert.equal(
      out.findings[0]!.message,
      '/many redirects (HTTP 301) to https://example.com/many/; it is linked from 12 pages.',
    );
    assert.equal(out.findings[0]!.urls.length, 10);
    assert.match(out.findings[0]!.evidence, /; linked from \/p0, \/p1, \/p2 and 9 more$/);
  });

  it('names every page that links to a redirect, beyond the first 10 referrers the crawl keeps', () => {
    const linking = Array.from({ length: 14 }, (_, i) =>
      page(`/p${i}`, { from: ['/'], body: doc('', '<p><a href="/many#top">Many</a></p>') }),
    );
    // One page links through its <base href>; a control links to the final URL and must not be named.
    const based = page('/dir/x', { from: ['/'], body: doc('<base href="/">', '<a href="many">Many</a>') });
    const control = page('/fine', { from: ['/'], body: doc('', '<a href="/many/">Many</a>') });
    const target = redirected('/many', '/many/', 301, {
      depth: 2,
      foundOn: linking.slice(0, 10).map((p) => p.url),
      linkedFrom: 15,
    });
    const out = run(internalRedirectLink, [HOME, ...linking, based, control, target]);
    assert.equal(out.findings.length, 1);
    assert.equal(
      out.findings[0]!.message,
      '/many redirects (HTTP 301) to https://example.com/many/; it is linked from 15 pages.',
    );
    assert.deepEqual(
      [...out.findings[0]!.urls].sort(),
      [...linking.map((p) => p.url), based.url].sort(),
      'all 15 linking pages, not the control',
    );
  });

  it('keeps at most 20 findings and still names every linking page', () => {
    const many = Array.from({ length: 21 }, (_, i) => [
      page(`/from${i}`, { from: ['/'] }),
      redirected(`/r${i}`, `/r${i}/`, 301, { depth: 2, from: [`/from${i}`] }),
    ]).flat();
    const out = run(internalRedirectLink, [HOME, ...many]);
    assert.equal(out.findings.length, 20);
    assert.equal(new Set(out.findings.flatMap((f) => f.urls)).size, 21);
  });

  it('passes when links, canonicals and alternates point at final URLs', () => {
    const clean = [HOME, page('/a', { from: ['/'], body: doc('<link rel="canonical" href="/a">') })];
    assert.deepEqual(run(internalRedirectLink, clean), { status: 'pass', score: 1, findings: [] });
    // A redirect nothing points at (reached from the sitemap alone) is not this rule's.
    assert.equal(
      run(internalRedirectLink, [...clean, redirected('/lone', '/a', 301, { depth: null, linkedFrom: 0 })]).status,
      'pass',
    );
  });
});

describe('SEO_DUPLICATE_CONTENT', () => {
  const LOREM =
    'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat'.split(
      ' ',
    );
  const words = (n: number, seed: string) =>
    Array.from({ length: n }, (_, i) => `${LOREM[i % LOREM.length]}${seed}${Math.floor(i / 7)}`);
  /** A page whose main text is `text`, inside chrome that differs from page to page. */
  const article = (path: string, text: string[], head = '', over: Partial<SnapshotPage> = {}) =>
    page(path, {
      body: doc(
        head,
        `<header>Site ${path}</header><nav><a href="/">Home</a> ${path} menu</nav><main><h1>${text.slice(0, 2).join(' ')}</h1><p>${text.slice(2).join(' ')}</p></main><div role="contentinfo">© ${path}</div><footer>Footer of ${path}</footer>`,
      ),
      ...over,
    });
  const long = words(120, 'a');
  const oneWordOff = [...long];
  oneWordOff[60] = 'changed';
  const text60 = words(60, 'e');

  it('groups pages with the same or nearly the same main text, minus pages that name another as canonical', () => {
    const out = run(duplicateContent, [
      HOME,
      article('/p1', long),
      article('/p2', long, '', { depth: 2 }),
      article('/p3', oneWordOff), // 2 of 64 bits off
      article('/c1', words(60, 'c')),
      article('/c2', words(60, 'c'), '<link rel="canonical" href="https://example.com/c1">'),
      article('/d1', words(60, 'd'), '<link rel="canonical" href="https://example.com/d">'),
      article('/d2', words(60, 'd'), '<link rel="canonical" href="https://example.com/d">'),
      article('/s1', words(49, 's')),
      article('/s2', words(49, 's')),
      article('/n1', words(60, 'n')),
      article('/n2', words(60, 'n'), NOINDEX),
      article('/e1', text60),
      article('/e2', text60),
      article('/e3', text60, '<link rel="canonical" href="/e1">'), // defers to /e1
    ]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 1 - 5 / 14); // 14 indexable pages (/n2 is noindex)
    assert.deepEqual(out.findings, [
      {
        message: '3 pages have nearly the same main text (120 words).',
        evidence:
          '/p1, /p3, /p2: near-identical main text starting "lorema0 ipsuma0 dolora0 sita0 ameta0 consectetura0 adipisci…"',
        urls: [abs('/p1'), abs('/p3'), abs('/p2')],
        subject: '/p1',
      },
      {
        message: '2 pages have the same main text (60 words).',
        evidence:
          '/e1, /e2: identical main text starting "loreme0 ipsume0 dolore0 site0 amete0 consecteture0 adipisci…"',
        urls: [abs('/e1'), abs('/e2')],
        subject: '/e1',
      },
    ]);
  });

  it('reads the main text without header, nav, footer, aside, scripts or landmark roles', () => {
    const p = parsePage(
      page('/x', {
        body: doc(
          '<style>p{}</style>',
          '<header>Brand</header><nav>Menu</nav><div role="banner">Banner</div><main><p>Hello <b>W</b>orld</p><aside>Ads</aside><script>var x</script><noscript>Enable JS</noscript><template>T</template><p>again</p></main><ul role="navigation"><li>Nav</li></ul><footer>Foot</footer>',
        ),
      }),
    );
    assert.deepEqual(mainText(p).split(/\s+/).filter(Boolean), ['Hello', 'World', 'again']);
  });

  it('passes distinct texts and short ones', () => {
    const out = run(duplicateContent, [
      HOME,
      article('/a', words(80, 'a')),
      article('/b', words(80, 'b')),
      article('/s1', words(49, 's')),
      article('/s2', words(49, 's')),
    ]);
    assert.deepEqual(out, { status: 'pass', score: 1, findings: [] });
  });
});
