import assert from 'node:assert/strict';
import { parsePages } from '../../src/analyzers/parse';
import type {
  CrawlSnapshot,
  HeaderMap,
  NotFoundProbe,
  SnapshotPage,
  SnapshotResource,
} from '../../src/analyzers/snapshot';
import type { Analyzer, AnalyzerOutcome } from '../../src/analyzers/types';
import {
  PAGE_WEIGHT_FAIL_BYTES,
  PAGE_WEIGHT_WARN_BYTES,
  cacheLifetime,
  cacheWeak,
  pageWeightHigh,
  renderBlocking,
  staticKind,
  ttfbSlow,
} from '../../src/analyzers/performance-site';
import { controlNameMissing, duplicateIdAria, formLabelMissing } from '../../src/analyzers/a11y-forms';
import { soft404 } from '../../src/analyzers/best-practices-site';

const ORIGIN = 'https://example.com';
const HTML: HeaderMap = { 'content-type': 'text/html; charset=utf-8' };

function doc(head: string, body = '<h1>Hi</h1>'): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title>${head}</head><body>${body}</body></html>`;
}

let n = 0;
function page(over: Partial<SnapshotPage> & { path?: string } = {}): SnapshotPage {
  const url = `${ORIGIN}${over.path ?? `/p${n++}`}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: HTML,
    body: doc(''),
    ttfbMs: 100,
    bytes: 10_000,
    depth: 1,
    redirectChain: [],
    ...over,
  };
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

function res(path: string, headers: Record<string, string>, over: Partial<SnapshotResource> = {}): SnapshotResource {
  return { url: path.startsWith('http') ? path : `${ORIGIN}${path}`, status: 200, headers, bytes: 1000, ...over };
}

describe('performance site analyzers', () => {
  it('PERF_TTFB_SLOW: > 800 ms fails, > 600 ms warns, grouped slowest first', () => {
    assert.deepEqual(run(ttfbSlow, [page({ ttfbMs: 600 })]), { status: 'pass', score: 1, findings: [] });
    const out = run(ttfbSlow, [
      page({ path: '/a', ttfbMs: 900 }),
      page({ path: '/b', ttfbMs: 1500 }),
      page({ path: '/c', ttfbMs: 700 }),
      page({ ttfbMs: 50 }),
    ]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, (0 + 0 + 0.5 + 1) / 4);
    assert.equal(out.findings.length, 2);
    assert.deepEqual(out.findings[0]!.urls, [`${ORIGIN}/b`, `${ORIGIN}/a`]);
    assert.match(out.findings[0]!.message, /2 pages took more than 800 ms .*slowest 1,500 ms/);
    assert.equal(out.findings[0]!.evidence, `${ORIGIN}/b: TTFB 1500 ms; ${ORIGIN}/a: TTFB 900 ms`);
    assert.equal(run(ttfbSlow, [page({ ttfbMs: 601 })]).status, 'warn');
    assert.equal(run(ttfbSlow, []).status, 'not_applicable');
  });

  it('PERF_CACHE_WEAK: own static assets need max-age >= 7 days or immutable', () => {
    assert.equal(run(cacheWeak, [page()]).status, 'not_applicable');
    const long = res('/app.js', {
      'content-type': 'application/javascript',
      'cache-control': 'public, max-age=31536000',
    });
    const immutable = res('/a.css', { 'content-type': 'text/css', 'cache-control': 'max-age=60, immutable' });
    const thirdParty = res('https://cdn.other.net/lib.js', { 'content-type': 'text/javascript' });
    const html = res('/page', { 'content-type': 'text/html' });
    assert.equal(run(cacheWeak, [page()], { resources: [long, immutable, thirdParty, html] }).status, 'pass');
    const short = res('/img/a.png', { 'content-type': 'image/png', 'cache-control': 'max-age=3600' });
    const short2 = res('/img/b.png', { 'content-type': 'image/png', 'cache-control': 'max-age=3600' });
    const days = res('/font.woff2', { 'cache-control': 'max-age=172800' });
    const none = res('https://static.example.com/x.js', {}, { kind: 'script' });
    const out = run(cacheWeak, [page()], { resources: [long, short, short2, days, none] });
    assert.equal(out.status, 'fail');
    assert.equal(out.score, (1 + 0 + 0 + 0.5 + 0) / 5);
    assert.deepEqual(
      out.findings.map((f) => [f.evidence, f.urls.length]),
      [
        ['Cache-Control: max-age=3600', 2],
        ['Cache-Control: (absent)', 1],
        ['Cache-Control: max-age=172800', 1],
      ],
    );
    assert.match(out.findings[0]!.message, /cached for 1 h/);
    assert.equal(staticKind(days), 'font');
    assert.equal(cacheLifetime(res('/x.js', { 'cache-control': 'no-cache, max-age=999999' })), 0);
    assert.equal(
      cacheLifetime(res('/x.js', { date: 'Sat, 21 Nov 2026 00:00:00 GMT', expires: 'Sat, 05 Dec 2026 00:00:00 GMT' })),
      14 * 86400,
    );
  });

  it('PERF_PAGE_WEIGHT_HIGH: document + referenced resources; warn above 2.6 MiB, fail above 4 MiB', () => {
    const body = doc(
      '<script src="/app.js"></script><link rel="stylesheet" href="/s.css">',
      '<img src="/hero.jpg" width=1 height=1>',
    );
    const p = page({ path: '/', body, bytes: 100_000 });
    const small = [
      res('/app.js', {}, { bytes: 200_000 }),
      res('/s.css', {}, { bytes: 50_000 }),
      res('/hero.jpg', {}, { bytes: 500_000 }),
    ];
    assert.equal(run(pageWeightHigh, [p], { resources: small }).status, 'pass');
    const heavyImg = res('/hero.jpg', {}, { bytes: PAGE_WEIGHT_WARN_BYTES });
    const warn = run(pageWeightHigh, [p], { resources: [small[0]!, heavyImg] });
    assert.equal(warn.status, 'warn');
    assert.match(warn.findings[0]!.evidence, /document 100,000 bytes \+ 2 resources/);
    // A resource attributed through foundOn (not in the markup) counts too.
    const video = res('/intro.mp4', {}, { bytes: PAGE_WEIGHT_FAIL_BYTES, foundOn: [`${ORIGIN}/`] });
    const fail = run(pageWeightHigh, [p, page()], { resources: [...small, video] });
    assert.equal(fail.status, 'fail');
    assert.equal(fail.score, 0.5);
    assert.deepEqual(fail.findings[0]!.urls, [`${ORIGIN}/`]);
    assert.equal(
      run(pageWeightHigh, [page({ body: null, headers: { 'content-type': 'image/png' } })]).status,
      'not_applicable',
    );
  });

  it('PERF_RENDER_BLOCKING: sync head scripts fail, more than 3 blocking stylesheets warn', () => {
    const ok = doc(
      '<script src="/a.js" defer></script><script src="/b.js" async></script><script type="module" src="/m.js"></script><script>inline()</script><script type="application/ld+json">{}</script><script nomodule src="/legacy.js"></script><link rel="stylesheet" href="/1.css"><link rel="stylesheet" href="/p.css" media="print">',
      '<script src="/late.js"></script>',
    );
    assert.equal(run(renderBlocking, [page({ body: ok })]).status, 'pass');
    const sync = run(renderBlocking, [page({ body: doc('<script src="/jquery.js"></script>') })]);
    assert.equal(sync.status, 'fail');
    assert.equal(sync.findings[0]!.evidence, '<script src="/jquery.js"></script>');
    // Same-named scripts of two sub-sites of one host: two findings, each message naming its script.
    const subSites = run(renderBlocking, [
      page({ path: '/en/', body: doc('<script src="_static/jquery.js"></script>') }),
      page({ path: '/ru/', body: doc('<script src="_static/jquery.js"></script>') }),
    ]);
    assert.deepEqual(
      subSites.findings.map((f) => f.message),
      ['/en/_static/jquery.js', '/ru/_static/jquery.js'].map(
        (s) => `The script ${s} in the head loads synchronously (no async or defer) and blocks rendering.`,
      ),
    );
    const css = [1, 2, 3, 4].map((i) => `<link rel="stylesheet" href="/${i}.css">`).join('');
    const many = run(renderBlocking, [page({ body: doc(css) })]);
    assert.equal(many.status, 'warn');
    assert.match(many.findings[0]!.message, /4 render-blocking stylesheets/);
  });
});

describe('accessibility form and control analyzers', () => {
  const body = (b: string) => page({ body: doc('', b) });

  it('A11Y_FORM_LABEL_MISSING: fields need a label, aria-label, aria-labelledby or title', () => {
    assert.equal(run(formLabelMissing, [body('<p>no form</p>')]).status, 'not_applicable');
    const ok =
      '<label for="e">Email</label><input id="e" type="email"><label>Name <input name="n"></label><input aria-label="Search" type="search">' +
      '<select title="Country"><option>X</option></select><span id="l">Msg</span><textarea aria-labelledby="l"></textarea>' +
      '<input type="hidden" name="t"><input type="submit"><input type="image" src="go.png" alt="Go"><input type="text" hidden>';
    assert.equal(run(formLabelMissing, [body(`<form>${ok}</form>`)]).status, 'pass');
    const bad = run(formLabelMissing, [
      body(
        '<input type="text" name="q" placeholder="Search"><select name="s"></select><textarea id="t"></textarea><label for="other">x</label>',
      ),
    ]);
    assert.equal(bad.status, 'fail');
    // A placeholder names the field as axe accepts it: reported at info level, after the failures.
    assert.deepEqual(
      bad.findings.map((f) => [f.evidence, f.severity]),
      [
        ['<select name="s"></select>', undefined],
        ['<textarea id="t"></textarea>', undefined],
        ['<input type="text" name="q" placeholder="Search">', 'info'],
      ],
    );
  });

  it('A11Y_CONTROL_NAME_MISSING: links and buttons need text, aria-label, title or image alt', () => {
    const ok =
      '<a href="/a">About</a><a href="/b" aria-label="Home"><svg></svg></a><a href="/c"><img src="l.png" alt="Logo"></a>' +
      '<button>Send</button><button title="Close">×</button><button aria-labelledby="x"></button><input type="button" value="Go"><a name="x"></a><a href="/h" aria-hidden="true"></a><a href="/s"><svg aria-label="Search"></svg></a>';
    assert.equal(run(controlNameMissing, [body(ok)]).status, 'pass');
    assert.equal(run(controlNameMissing, [body('<p>x</p>')]).status, 'not_applicable');
    const bad = run(controlNameMissing, [
      body(
        '<a href="/x"><img src="i.png" alt=""></a><button class="icon"><i class="fa"></i></button><input type="button">',
      ),
    ]);
    assert.equal(bad.status, 'fail');
    assert.deepEqual(
      bad.findings.map((f) => f.message),
      [
        'A link has no accessible name (no text, aria-label, title or image alt).',
        'A button has no accessible name (no text, aria-label, title or image alt).',
        'A button has no accessible name (no text, aria-label, title or image alt).',
      ],
    );
    assert.deepEqual(
      bad.findings.map((f) => f.evidence),
      [
        '<a href="/x"><img src="i.png" alt=""></a>',
        '<button class="icon"><i class="fa"></i></button>',
        '<input type="button">',
      ],
    );
  });

  it('A11Y_DUPLICATE_ID_ARIA: only duplicated ids that ARIA or a label refers to', () => {
    assert.equal(run(duplicateIdAria, [body('<div id="a"></div><div id="a"></div>')]).status, 'not_applicable');
    assert.equal(
      run(duplicateIdAria, [
        body('<span id="d">Help</span><input aria-describedby="d" title="x"><div id="z"></div><div id="z"></div>'),
      ]).status,
      'pass',
    );
    const bad = run(duplicateIdAria, [
      body(
        '<span id="lbl">One</span><span id="lbl">Two</span><input aria-labelledby="lbl other"><label for="f">F</label><input id="f"><input id="f">',
      ),
    ]);
    assert.equal(bad.status, 'fail');
    assert.deepEqual(bad.findings.map((f) => f.message).sort(), [
      'The id "f" referenced by ARIA or a label appears 2 times on the page.',
      'The id "lbl" referenced by ARIA or a label appears 2 times on the page.',
    ]);
    assert.match(
      bad.findings.find((f) => f.message.includes('"lbl"'))!.evidence,
      /<span id="lbl">One<\/span> \| <span id="lbl">Two<\/span>/,
    );
  });
});

describe('best-practice site analyzers', () => {
  const probe = (status: number, body: string | null, over: Partial<NotFoundProbe> = {}): NotFoundProbe =>
    ({
      kind: 'fetched',
      url: `${ORIGIN}/da-404-check-x1`,
      finalUrl: `${ORIGIN}/da-404-check-x1`,
      status,
      body,
      ...over,
    }) as NotFoundProbe;
  const helpful = doc(
    '',
    `<h1>Page not found</h1><p>${'We could not find that page. Try the search box or one of the sections below. '.repeat(10)}</p>`,
  );

  it('BP_SOFT_404: 200 fails, a nearly empty 404 warns, a helpful 404 passes', () => {
    assert.equal(run(soft404, [page()]).status, 'not_applicable');
    assert.equal(
      run(soft404, [page()], { notFoundProbe: { kind: 'unreachable', url: `${ORIGIN}/x`, error: 'ECONNRESET' } })
        .status,
      'not_applicable',
    );
    assert.equal(run(soft404, [page()], { notFoundProbe: probe(404, helpful) }).status, 'pass');
    const soft = run(soft404, [page()], { notFoundProbe: probe(200, doc('', '<h1>Welcome</h1>')) });
    assert.equal(soft.status, 'fail');
    assert.equal(soft.findings[0]!.evidence, `GET ${ORIGIN}/da-404-check-x1 → HTTP 200 OK`);
    const home = run(soft404, [page()], { notFoundProbe: probe(200, helpful, { finalUrl: `${ORIGIN}/` }) });
    assert.match(home.findings[0]!.message, /after redirecting to https:\/\/example\.com\//);
    const empty = run(soft404, [page()], {
      notFoundProbe: probe(404, '<html><head><style>body{}</style></head><body>Not Found</body></html>'),
    });
    // A real 404 is never a soft 404, however little it shows.
    assert.equal(empty.status, 'pass');
    assert.equal(run(soft404, [page()], { notFoundProbe: probe(404, null) }).status, 'pass');
  });
});
