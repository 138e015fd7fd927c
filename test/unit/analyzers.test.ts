import assert from 'node:assert/strict';
import { CATALOG, ANALYZER_CODES, catalogEntry, categoryOfCode } from '../../src/analyzers/catalog';
import { ANALYZERS, runAnalyzers, runAnalyzersInSlices } from '../../src/analyzers';
import { findingId } from '../../src/analyzers/findings';
import { Node } from 'domhandler';
import { parsePages } from '../../src/analyzers/parse';
import type { CrawlSnapshot, HeaderMap, SnapshotPage } from '../../src/analyzers/snapshot';
import { pageAnalyzer, siteAnalyzer, type Analyzer, type AnalyzerOutcome } from '../../src/analyzers/types';
import {
  clickjacking,
  cspMissing,
  hstsMissing,
  hstsWeak,
  httpsUnavailable,
  referrerPolicyUnsafe,
  versionDisclosure,
  xctoMissing,
} from '../../src/analyzers/security-headers';
import { parseHsts } from '../../src/analyzers/hsts-policy';
import {
  h1Missing,
  httpStatusError,
  metaDescMissing,
  noindex,
  titleMissing,
  xRobotsNoindex,
} from '../../src/analyzers/seo-page';
import { imgAltMissing, isValidLangTag, langInvalid, zoomDisabled } from '../../src/analyzers/a11y-page';
import { doctypeCharset, viewportMissing } from '../../src/analyzers/best-practices';
import { compressionMissing, imgUnsized } from '../../src/analyzers/performance-page';

const ORIGIN = 'https://example.com';

/** A well-behaved page; tests override what they exercise. */
const GOOD_HEADERS: HeaderMap = {
  'content-type': 'text/html; charset=utf-8',
  'content-encoding': 'br',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'content-security-policy': "default-src 'self'; frame-ancestors 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  server: 'nginx',
};

function html(head: string, body = '<h1>Hello</h1>', htmlAttrs = ' lang="en"'): string {
  return `<!DOCTYPE html><html${htmlAttrs}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${head}</head><body>${body}</body></html>`;
}

const GOOD_HEAD =
  '<title>Example home page for testing titles</title><meta name="description" content="An example page.">';

let pageCounter = 0;
function page(over: Partial<SnapshotPage> & { path?: string } = {}): SnapshotPage {
  const url = `${ORIGIN}${over.path ?? `/p${pageCounter++}`}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: GOOD_HEADERS,
    body: html(GOOD_HEAD),
    ttfbMs: 120,
    bytes: 20_000,
    depth: 1,
    redirectChain: [],
    ...over,
  };
}

function snap(pages: SnapshotPage[], extra: Partial<CrawlSnapshot> = {}): CrawlSnapshot {
  return {
    origin: ORIGIN,
    robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
    pages,
    ...extra,
  };
}

function run(analyzer: Analyzer, pages: SnapshotPage[], extra: Partial<CrawlSnapshot> = {}): AnalyzerOutcome {
  const s = snap(pages, extra);
  return analyzer.run(s, parsePages(s.pages));
}

function headers(over: Record<string, string | string[] | undefined>): HeaderMap {
  const h: Record<string, string | readonly string[]> = { ...GOOD_HEADERS };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) delete h[k];
    else h[k] = v;
  }
  return h;
}

describe('analyzer catalog', () => {
  it('has every code of the catalog once, with customer text', () => {
    assert.equal(CATALOG.length, 75);
    assert.equal(new Set(ANALYZER_CODES).size, 75);
    for (const e of CATALOG) {
      assert.match(e.code, /^[A-Z0-9_]+$/);
      assert.ok(e.title.length > 5 && e.why.length > 20 && e.recommendation.length > 20, e.code);
      assert.equal(e.category, categoryOfCode(e.code));
    }
    assert.equal(catalogEntry('SEO_NOINDEX').severity, 'critical');
    assert.equal(catalogEntry('EMAIL_DMARC_WEAK').category, 'dns_email');
    assert.equal(catalogEntry('BP_SOFT_404').category, 'best_practices');
    assert.throws(() => catalogEntry('NOPE'));
  });
});

describe('security header analyzers', () => {
  it('SEC_HSTS_MISSING: passes with the header, fails without, n/a on http', () => {
    assert.deepEqual(run(hstsMissing, [page()]), { status: 'pass', score: 1, findings: [] });
    const out = run(hstsMissing, [page({ headers: headers({ 'strict-transport-security': undefined }) }), page()]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 0.5);
    assert.equal(out.findings.length, 1);
    assert.equal(out.findings[0]!.evidence, 'Strict-Transport-Security: (absent)');
    assert.equal(out.findings[0]!.urls.length, 1);
    const httpPage = page({
      url: 'http://example.com/',
      finalUrl: 'http://example.com/',
      headers: headers({ 'strict-transport-security': undefined }),
    });
    assert.equal(run(hstsMissing, [httpPage]).status, 'not_applicable');
  });

  it('SEC_HSTS_WEAK: max-age=100 fails, 20000000 warns, 31536000 passes, invalid fails', () => {
    const withHsts = (v: string) => page({ headers: headers({ 'strict-transport-security': v }) });
    const f = run(hstsWeak, [withHsts('max-age=100')]);
    assert.equal(f.status, 'fail');
    assert.equal(f.score, 0);
    assert.equal(f.findings[0]!.evidence, 'Strict-Transport-Security: max-age=100');
    const w = run(hstsWeak, [withHsts('max-age=20000000')]);
    assert.equal(w.status, 'warn');
    assert.equal(w.score, 0.5);
    assert.equal(run(hstsWeak, [withHsts('max-age=31536000')]).status, 'pass');
    assert.equal(run(hstsWeak, [withHsts('max-age="31536000"; preload')]).status, 'pass');
    for (const bad of ['includeSubDomains', 'max-age=abc', 'max-age=31536000; max-age=31536000', 'max-age 31536000']) {
      const out = run(hstsWeak, [withHsts(bad)]);
      assert.equal(out.status, 'fail', bad);
      assert.match(out.findings[0]!.message, /invalid/);
    }
    // Without any header the analyzer has nothing to judge: SEC_HSTS_MISSING reports it.
    assert.equal(
      run(hstsWeak, [page({ headers: headers({ 'strict-transport-security': undefined }) })]).status,
      'not_applicable',
    );
    // Browsers use only the first header.
    assert.equal(run(hstsWeak, [withHsts(['max-age=31536000', 'max-age=0'] as never)]).status, 'pass');
    assert.equal(run(hstsWeak, [withHsts('max-age=100, max-age=31536000')]).status, 'fail');
  });

  it('parseHsts reads the directives', () => {
    assert.deepEqual(parseHsts('max-age=63072000; includeSubDomains; preload'), {
      valid: true,
      maxAge: 63072000,
      includeSubDomains: true,
      preload: true,
    });
    assert.equal(parseHsts('').valid, false);
  });

  it('SEC_CSP_MISSING: header or meta counts, report-only does not', () => {
    assert.equal(run(cspMissing, [page()]).status, 'pass');
    const none = headers({ 'content-security-policy': undefined });
    const meta = page({
      headers: none,
      body: html(`${GOOD_HEAD}<meta http-equiv="Content-Security-Policy" content="default-src 'self'">`),
    });
    assert.equal(run(cspMissing, [meta]).status, 'pass');
    const ro = run(cspMissing, [
      page({
        headers: headers({
          'content-security-policy': undefined,
          'content-security-policy-report-only': "default-src 'self'",
        }),
      }),
    ]);
    assert.equal(ro.status, 'fail');
    assert.match(ro.findings[0]!.evidence, /^Content-Security-Policy-Report-Only: default-src/);
    const missing = run(cspMissing, [page({ headers: none })]);
    assert.equal(missing.status, 'fail');
    assert.equal(missing.findings[0]!.evidence, 'Content-Security-Policy: (absent)');
  });

  it('SEC_CLICKJACKING: X-Frame-Options or frame-ancestors', () => {
    const noCsp = { 'content-security-policy': undefined };
    assert.equal(run(clickjacking, [page()]).status, 'pass'); // frame-ancestors
    assert.equal(
      run(clickjacking, [page({ headers: headers({ ...noCsp, 'x-frame-options': 'SAMEORIGIN' }) })]).status,
      'pass',
    );
    assert.equal(
      run(clickjacking, [page({ headers: headers({ ...noCsp, 'x-frame-options': 'deny' }) })]).status,
      'pass',
    );
    const none = run(clickjacking, [page({ headers: headers(noCsp) })]);
    assert.equal(none.status, 'fail');
    assert.match(none.findings[0]!.evidence, /X-Frame-Options: \(absent\)/);
    const allowFrom = run(clickjacking, [
      page({ headers: headers({ ...noCsp, 'x-frame-options': 'ALLOW-FROM https://a.example' }) }),
    ]);
    assert.equal(allowFrom.status, 'fail');
    assert.match(allowFrom.findings[0]!.message, /obsolete/);
    const star = run(clickjacking, [page({ headers: headers({ 'content-security-policy': 'frame-ancestors *' }) })]);
    assert.equal(star.status, 'fail');
    // frame-ancestors in a meta policy is ignored by browsers.
    const metaOnly = page({
      headers: headers(noCsp),
      body: html(`<meta http-equiv="Content-Security-Policy" content="frame-ancestors 'none'">`),
    });
    assert.equal(run(clickjacking, [metaOnly]).status, 'fail');
  });

  it('SEC_XCTO_MISSING', () => {
    assert.equal(
      run(xctoMissing, [page({ headers: headers({ 'x-content-type-options': 'NoSniff' }) })]).status,
      'pass',
    );
    const out = run(xctoMissing, [page({ headers: headers({ 'x-content-type-options': undefined }) })]);
    assert.equal(out.status, 'fail');
    assert.equal(out.findings[0]!.evidence, 'X-Content-Type-Options: (absent)');
    assert.equal(run(xctoMissing, [page({ headers: headers({ 'x-content-type-options': 'sniff' }) })]).status, 'fail');
  });

  it('SEC_REFERRER_POLICY_UNSAFE: unsafe-url, origin, no-referrer-when-downgrade fail; absent passes', () => {
    for (const bad of ['unsafe-url', 'origin', 'no-referrer-when-downgrade', 'no-referrer, unsafe-url']) {
      const out = run(referrerPolicyUnsafe, [page({ headers: headers({ 'referrer-policy': bad }) })]);
      assert.equal(out.status, 'fail', bad);
      assert.equal(out.findings[0]!.evidence, `Referrer-Policy: ${bad}`);
    }
    assert.equal(
      run(referrerPolicyUnsafe, [page({ headers: headers({ 'referrer-policy': undefined }) })]).status,
      'pass',
    );
    assert.equal(
      run(referrerPolicyUnsafe, [page({ headers: headers({ 'referrer-policy': 'unsafe-url, strict-origin' }) })])
        .status,
      'pass',
    );
    const meta = page({ body: html('<meta name="referrer" content="always">') });
    assert.equal(run(referrerPolicyUnsafe, [meta]).status, 'fail');
  });

  it('SEC_VERSION_DISCLOSURE: versioned Server and X-Powered-By', () => {
    assert.equal(run(versionDisclosure, [page({ headers: headers({ server: 'nginx' }) })]).status, 'pass');
    assert.equal(run(versionDisclosure, [page({ headers: headers({ server: 'cloudflare' }) })]).status, 'pass');
    assert.equal(run(versionDisclosure, [page({ headers: headers({ server: 'ECS (dcb/7F84)' }) })]).status, 'pass');
    for (const v of ['nginx/1.18.0', 'Apache/2.4.41 (Ubuntu)', 'Microsoft-IIS/10.0', 'Apache/2']) {
      const out = run(versionDisclosure, [page({ headers: headers({ server: v }) })]);
      assert.equal(out.status, 'fail', v);
      assert.equal(out.findings[0]!.evidence, `Server: ${v}`);
    }
    const xpb = run(versionDisclosure, [page({ headers: headers({ 'x-powered-by': 'Express' }) })]);
    assert.equal(xpb.status, 'fail');
    assert.equal(xpb.findings[0]!.evidence, 'X-Powered-By: Express');
  });

  it('SEC_HTTPS_UNAVAILABLE: http-only origin fails, https responses or TLS facts pass', () => {
    const httpPage = page({ url: 'http://example.com/', finalUrl: 'http://example.com/' });
    const fail = run(httpsUnavailable, [httpPage], { origin: 'http://example.com' });
    assert.equal(fail.status, 'fail');
    assert.equal(fail.score, 0);
    assert.deepEqual(fail.findings[0]!.urls, ['http://example.com']);
    const redirected = page({ url: 'http://example.com/', finalUrl: 'https://example.com/' });
    assert.equal(run(httpsUnavailable, [redirected], { origin: 'http://example.com' }).status, 'pass');
    assert.equal(
      run(httpsUnavailable, [httpPage], {
        origin: 'http://example.com',
        tls: { ok: true, facts: { httpsAvailable: true } },
      }).status,
      'pass',
    );
    assert.equal(
      run(httpsUnavailable, [httpPage], {
        origin: 'http://example.com',
        tls: { ok: true, facts: { httpsAvailable: false } },
      }).status,
      'fail',
    );
    assert.equal(
      run(httpsUnavailable, [httpPage], { origin: 'http://example.com', tls: { ok: false, error: 'timeout' } }).status,
      'error',
    );
    assert.equal(run(httpsUnavailable, [page()]).status, 'pass');
  });
});

describe('SEO page analyzers', () => {
  it('SEO_TITLE_MISSING: absent and empty titles fail, svg titles do not count', () => {
    assert.equal(run(titleMissing, [page()]).status, 'pass');
    const absent = run(titleMissing, [page({ body: html('') })]);
    assert.equal(absent.status, 'fail');
    assert.equal(absent.findings[0]!.evidence, '(no <title> element)');
    const empty = run(titleMissing, [page({ body: html('<title>  </title>') })]);
    assert.equal(empty.findings[0]!.evidence, '<title> </title>');
    const svg = run(titleMissing, [page({ body: html('', '<svg><title>icon</title></svg>') })]);
    assert.equal(svg.status, 'fail');
    // Non-HTML and error pages are not judged.
    assert.equal(run(titleMissing, [page({ status: 404 })]).status, 'not_applicable');
    assert.equal(
      run(titleMissing, [page({ headers: headers({ 'content-type': 'application/pdf' }) })]).status,
      'not_applicable',
    );
  });

  it('SEO_META_DESC_MISSING: missing fails, duplicates warn', () => {
    assert.equal(run(metaDescMissing, [page()]).status, 'pass'); // one page: no duplicate
    const missing = run(metaDescMissing, [page({ body: html('<title>t</title>') })]);
    assert.equal(missing.status, 'fail');
    const a = page({ body: html('<meta name="description" content="Same text">') });
    const b = page({ body: html('<meta name="Description" content=" Same   text ">') });
    const c = page({ body: html('<meta name="description" content="Other text">') });
    const dup = run(metaDescMissing, [a, b, c]);
    assert.equal(dup.status, 'warn');
    assert.equal(dup.score, 2 / 3);
    assert.equal(dup.findings.length, 1);
    assert.deepEqual(dup.findings[0]!.urls, [a.finalUrl, b.finalUrl]);
    assert.match(dup.findings[0]!.message, /Found at 2 URLs/);
  });

  it('SEO_H1_MISSING: none fails, several warn', () => {
    assert.equal(run(h1Missing, [page()]).status, 'pass');
    assert.equal(run(h1Missing, [page({ body: html(GOOD_HEAD, '<p>x</p>') })]).status, 'fail');
    const two = run(h1Missing, [page({ body: html(GOOD_HEAD, '<h1>A</h1><h1 class="x">B</h1>') })]);
    assert.equal(two.status, 'warn');
    assert.equal(two.findings[0]!.evidence, '<h1>A</h1> | <h1 class="x">B</h1>');
  });

  it('SEO_NOINDEX: meta robots or X-Robots-Tag; home page fails, other pages warn', () => {
    const home = page({ path: '/', depth: 0, body: html('<meta name="robots" content="noindex, follow">') });
    const out = run(noindex, [home, page()]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 0.5);
    assert.equal(out.findings[0]!.evidence, '<meta name="robots" content="noindex, follow">');
    const inner = run(noindex, [page({ headers: headers({ 'x-robots-tag': 'none' }) })]);
    assert.equal(inner.status, 'warn');
    assert.equal(inner.findings[0]!.evidence, 'X-Robots-Tag: none');
    assert.equal(run(noindex, [page({ body: html('<meta name="robots" content="index, follow">') })]).status, 'pass');
    assert.equal(xRobotsNoindex('otherbot: noindex'), false);
    assert.equal(xRobotsNoindex('googlebot: nofollow, noindex'), true);
    assert.equal(xRobotsNoindex('unavailable_after: 2030-01-01, noarchive'), false);
  });

  it('SEO_HTTP_STATUS_ERROR: 4xx/5xx pages fail with the status as evidence', () => {
    assert.equal(run(httpStatusError, [page()]).status, 'pass');
    const out = run(httpStatusError, [
      page(),
      page({ status: 404, body: 'gone' }),
      page({ status: 503, body: null }),
      page(),
    ]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 0.5);
    assert.deepEqual(out.findings.map((f) => f.evidence).sort(), [
      'HTTP 404 Not Found',
      'HTTP 503 Service Unavailable',
    ]);
    assert.equal(run(httpStatusError, []).status, 'not_applicable');
  });
});

describe('accessibility analyzers', () => {
  it('A11Y_LANG_INVALID: missing, empty and malformed lang fail', () => {
    assert.equal(run(langInvalid, [page()]).status, 'pass');
    const missing = run(langInvalid, [page({ body: html(GOOD_HEAD, '<h1>x</h1>', '') })]);
    assert.equal(missing.status, 'fail');
    assert.equal(missing.findings[0]!.evidence, '<html>');
    assert.equal(run(langInvalid, [page({ body: html(GOOD_HEAD, '', ' lang="en_US"') })]).status, 'fail');
    for (const ok of ['en', 'en-US', 'pt-BR', 'zh-Hant-TW', 'es-419', 'de-CH-1996', 'fil'])
      assert.ok(isValidLangTag(ok), ok);
    for (const bad of ['en_US', 'english', 'e', '123', 'en-', 'x-klingon', '']) assert.ok(!isValidLangTag(bad), bad);
  });

  it('A11Y_IMG_ALT_MISSING: img without alt fails; alt="" and role=presentation pass; n/a without images', () => {
    assert.equal(run(imgAltMissing, [page()]).status, 'not_applicable');
    const ok = page({
      body: html(
        GOOD_HEAD,
        '<img src="a.png" alt=""><img src="b.png" role="presentation"><img src="c.png" aria-label="C"><input type="image" src="go.png" alt="Go">',
      ),
    });
    assert.equal(run(imgAltMissing, [ok]).status, 'pass');
    const bad = page({
      body: html(GOOD_HEAD, '<img src="/logo.png"   class="logo"><input type="image" src="go.png" alt="">'),
    });
    const out = run(imgAltMissing, [bad, ok]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 0.5);
    assert.deepEqual(
      out.findings.map((f) => f.evidence),
      ['<img src="/logo.png" class="logo">', '<input type="image" src="go.png" alt="">'],
    );
  });

  it('A11Y_ZOOM_DISABLED: user-scalable=no or maximum-scale < 2', () => {
    const vp = (content: string) =>
      page({
        body: `<!DOCTYPE html><html lang="en"><head><meta name="viewport" content="${content}"></head><body></body></html>`,
      });
    assert.equal(run(zoomDisabled, [vp('width=device-width, initial-scale=1')]).status, 'pass');
    assert.equal(run(zoomDisabled, [vp('width=device-width, maximum-scale=5')]).status, 'pass');
    const no = run(zoomDisabled, [vp('width=device-width, user-scalable=no')]);
    assert.equal(no.status, 'fail');
    assert.equal(no.findings[0]!.evidence, '<meta name="viewport" content="width=device-width, user-scalable=no">');
    assert.equal(run(zoomDisabled, [vp('width=device-width; maximum-scale=1.0')]).status, 'fail');
    assert.equal(run(zoomDisabled, [vp('width=device-width, user-scalable=0')]).status, 'fail');
    assert.equal(
      run(zoomDisabled, [page({ body: '<!DOCTYPE html><html lang="en"><head></head></html>' })]).status,
      'not_applicable',
    );
  });
});

describe('best-practice analyzers', () => {
  it('BP_VIEWPORT_MISSING', () => {
    assert.equal(run(viewportMissing, [page()]).status, 'pass');
    const none = run(viewportMissing, [page({ body: '<!DOCTYPE html><html><head><title>x</title></head></html>' })]);
    assert.equal(none.status, 'fail');
    const useless = run(viewportMissing, [
      page({ body: '<html><head><meta name="viewport" content="user-scalable=yes"></head></html>' }),
    ]);
    assert.equal(useless.status, 'fail');
  });

  it('BP_DOCTYPE_CHARSET: doctype first, charset early or in Content-Type', () => {
    assert.equal(run(doctypeCharset, [page()]).status, 'pass');
    const noDoctype = run(doctypeCharset, [page({ body: '<html><head><meta charset="utf-8"></head></html>' })]);
    assert.equal(noDoctype.status, 'fail');
    assert.match(noDoctype.findings[0]!.message, /quirks mode/);
    assert.equal(
      run(doctypeCharset, [
        page({ body: '<!-- hi -->\n<!doctype html><html><head><meta charset="utf-8"></head></html>' }),
      ]).status,
      'pass',
    );
    const legacy = run(doctypeCharset, [
      page({
        body: '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd"><html><head><meta charset="utf-8"></head></html>',
      }),
    ]);
    assert.equal(legacy.status, 'warn');
    const noCharset = { 'content-type': 'text/html' };
    const late = `<!DOCTYPE html><html><head><script>${'x'.repeat(1100)}</script><meta charset="utf-8"></head></html>`;
    const lateOut = run(doctypeCharset, [page({ headers: headers(noCharset), body: late })]);
    assert.equal(lateOut.status, 'fail');
    assert.match(lateOut.findings[0]!.message, /after the first 1024 bytes/);
    assert.equal(run(doctypeCharset, [page({ body: late })]).status, 'pass'); // charset in the header
    const none = run(doctypeCharset, [
      page({ headers: headers(noCharset), body: '<!DOCTYPE html><html><head></head></html>' }),
    ]);
    assert.equal(none.findings[0]!.evidence, 'Content-Type: text/html');
    const httpEquiv =
      '<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"></head></html>';
    assert.equal(run(doctypeCharset, [page({ headers: headers(noCharset), body: httpEquiv })]).status, 'pass');
  });
});

describe('performance analyzers', () => {
  it('PERF_COMPRESSION_MISSING: large text responses need br or gzip', () => {
    assert.equal(run(compressionMissing, [page()]).status, 'pass');
    assert.equal(run(compressionMissing, [page({ headers: headers({ 'content-encoding': 'gzip' }) })]).status, 'pass');
    const plain = run(compressionMissing, [
      page({ headers: headers({ 'content-encoding': undefined }), bytes: 48_213 }),
    ]);
    assert.equal(plain.status, 'fail');
    assert.equal(
      plain.findings[0]!.evidence,
      'Content-Encoding: (absent); Content-Type: text/html; charset=utf-8; 48213 bytes',
    );
    // Tiny responses and binary types are not judged.
    assert.equal(
      run(compressionMissing, [page({ headers: headers({ 'content-encoding': undefined }), bytes: 500 })]).status,
      'not_applicable',
    );
    const resources = [
      { url: `${ORIGIN}/app.js`, status: 200, headers: { 'content-type': 'application/javascript' }, bytes: 90_000 },
      { url: `${ORIGIN}/a.png`, status: 200, headers: { 'content-type': 'image/png' }, bytes: 90_000 },
    ];
    const withRes = run(compressionMissing, [page()], { resources });
    assert.equal(withRes.status, 'fail');
    assert.equal(withRes.score, 0.5);
    assert.deepEqual(withRes.findings[0]!.urls, [`${ORIGIN}/app.js`]);
  });

  it('PERF_IMG_UNSIZED: width and height attributes or CSS', () => {
    assert.equal(run(imgUnsized, [page()]).status, 'not_applicable');
    const ok = page({
      body: html(
        GOOD_HEAD,
        '<img src="a.png" width="10" height="10"><img src="b.png" style="width: 10px; height: 20px"><img src="c.png" style="aspect-ratio: 16/9">',
      ),
    });
    assert.equal(run(imgUnsized, [ok]).status, 'pass');
    const bad = run(imgUnsized, [
      page({ body: html(GOOD_HEAD, '<img src="hero.webp" width="100"><img src="x.png" width="auto" height="auto">') }),
    ]);
    assert.equal(bad.status, 'fail');
    assert.equal(bad.findings.length, 2);
    assert.equal(bad.findings[0]!.evidence, '<img src="hero.webp" width="100">');
  });
});

describe('runAnalyzers', () => {
  it('runs the registry in catalog order and completes findings from the catalog', () => {
    const codes = ANALYZERS.map((a) => a.code);
    assert.equal(new Set(codes).size, codes.length);
    assert.ok(codes.length >= 20);
    assert.deepEqual(
      codes,
      ANALYZER_CODES.filter((c) => codes.includes(c)),
    );
    const bad = page({
      path: '/',
      depth: 0,
      headers: headers({ 'strict-transport-security': undefined, 'x-powered-by': 'PHP/8.1.2' }),
      body: '<html><body><img src="/x.png"></body></html>',
    });
    const result = runAnalyzers(snap([bad, page()]));
    assert.deepEqual(
      result.analyzers.map((a) => a.code),
      codes,
    );
    const hsts = result.analyzers.find((a) => a.code === 'SEC_HSTS_MISSING')!;
    assert.deepEqual(hsts, {
      code: 'SEC_HSTS_MISSING',
      category: 'security',
      title: 'HSTS header missing',
      severity: 'high',
      status: 'fail',
      score: 0.5,
      weight: 7,
    });
    assert.equal(result.analyzers.find((a) => a.code === 'A11Y_IMG_ALT_MISSING')!.status, 'fail');
    assert.equal(result.analyzers.find((a) => a.code === 'PERF_IMG_UNSIZED')!.status, 'fail');
    for (const f of result.findings) {
      assert.match(f.id, /^fnd_[0-9a-z]{10}$/);
      assert.equal(f.recommendation, catalogEntry(f.analyzer).recommendation);
      assert.equal(f.title, catalogEntry(f.analyzer).title);
      assert.ok(f.urls.length > 0);
    }
    assert.equal(new Set(result.findings.map((f) => f.id)).size, result.findings.length);
    assert.equal(result.pages.length, 2);
    const pages = [...result.pages];
    assert.deepEqual(pages[0], {
      url: `${ORIGIN}/`,
      status_code: 200,
      depth: 0,
      ttfb_ms: 120,
      bytes: 20000,
      content_type: 'text/html; charset=utf-8',
      title: null,
      requestedUrl: `${ORIGIN}/`,
      redirects: [],
      indexable: true,
      canonical: null,
      inlinks: 0,
      outlinks: 0,
    });
    assert.equal(pages[1]!.title, 'Example home page for testing titles');
  });

  it('assigns stable finding ids from (analyzer, urls, evidence)', () => {
    const a = runAnalyzers(snap([page({ path: '/a', headers: headers({ 'x-content-type-options': undefined }) })]));
    const b = runAnalyzers(snap([page({ path: '/a', headers: headers({ 'x-content-type-options': undefined }) })]));
    assert.deepEqual(
      a.findings.map((f) => f.id),
      b.findings.map((f) => f.id),
    );
    const id = findingId('SEC_XCTO_MISSING', [`${ORIGIN}/a`], 'X-Content-Type-Options: (absent)');
    assert.equal(a.findings.find((f) => f.analyzer === 'SEC_XCTO_MISSING')!.id, id);
    assert.notEqual(findingId('SEC_XCTO_MISSING', [`${ORIGIN}/b`], 'X-Content-Type-Options: (absent)'), id);
  });

  it('reports an analyzer that throws as error without failing the others', () => {
    const boom = siteAnalyzer('SEO_LLMS_TXT', () => {
      throw new Error('bug');
    });
    const boomOnPage = pageAnalyzer('SEO_H1_MISSING', (p) => {
      if (p.url.endsWith('/2')) throw new Error('bug');
      return null;
    });
    const seen: string[] = [];
    const r = runAnalyzers(snap([page({ path: '/1' }), page({ path: '/2' })]), {
      analyzers: [boom, boomOnPage, xctoMissing],
      onError: (code) => seen.push(code),
    });
    assert.deepEqual(
      r.analyzers.map((a) => [a.code, a.status, a.weight]),
      [
        ['SEO_LLMS_TXT', 'error', 0],
        ['SEO_H1_MISSING', 'error', 0],
        ['SEC_XCTO_MISSING', 'pass', 1],
      ],
    );
    assert.deepEqual(seen.sort(), ['SEO_H1_MISSING', 'SEO_LLMS_TXT']);
  });

  it('in slices gives the same result and hands the event loop back between slices', async () => {
    const pages = Array.from({ length: 6 }, (_, i) =>
      page({ path: `/p${i}`, headers: headers({ 'x-powered-by': 'PHP/8.1.2' }) }),
    );
    const whole = runAnalyzers(snap(pages));
    const slices: number[] = [];
    // Another task queued on the event loop: it can only run while the analysis yields.
    let otherTaskRuns = 0;
    let analysing = true;
    const otherTask = () => {
      otherTaskRuns++;
      if (analysing) setImmediate(otherTask);
    };
    setImmediate(otherTask);
    const sliced = await runAnalyzersInSlices(snap(pages), { sliceMs: 0, onSlice: (done) => slices.push(done) });
    analysing = false;
    assert.deepEqual(sliced, whole);
    // A slice after each page, then while the analyzers finish (every page done by then).
    assert.deepEqual(slices.slice(0, 6), [1, 2, 3, 4, 5, 6]);
    assert.ok(slices.length > 6 && slices.slice(6).every((done) => done === 6), `slices ${slices.join(',')}`);
    assert.ok(otherTaskRuns >= 5, `other work ran ${otherTaskRuns} times during the analysis`);
  });

  it('observations keep no parsed nodes, so only one page tree is alive at a time', () => {
    const rich = page({
      body: html(
        '<meta name="description" content="d"><meta name="robots" content="noindex">',
        '<h1>a</h1><h1>b</h1><img src="x.png"><input type="image" src="y.png">',
        ' lang="en_US"',
      ),
    });
    const [parsed] = parsePages([rich]);
    const walk = (v: unknown, seen = new Set<unknown>()): void => {
      if (v === null || typeof v !== 'object' || seen.has(v)) return;
      seen.add(v);
      assert.ok(!(v instanceof Node), 'an observation holds a DOM node');
      for (const x of Object.values(v)) walk(x, seen);
    };
    for (const a of ANALYZERS) walk(a.observe(parsed!));
  });

  it('copes with hostile or broken markup', () => {
    const bodies = [
      '',
      '<',
      '\uFEFF<!DOCTYPE html><html lang="en"><title>BOM</title>',
      '\u0000\u0001binary\uFFFD',
      '<div>'.repeat(20_000),
      `<img alt="${'x'.repeat(100_000)}" src=a>`,
      '<html><head><title>unclosed',
      '<svg><title>only svg</title></svg>',
      '<!DOCTYPE><html lang=""><meta name=viewport content=",,=;;">',
    ];
    const seen: string[] = [];
    const r = runAnalyzers(snap(bodies.map((body) => page({ body }))), { onError: (code) => seen.push(code) });
    assert.deepEqual(seen, []);
    assert.ok(r.analyzers.every((a) => a.status !== 'error'));
    for (const f of r.findings) assert.ok(f.evidence.length <= 300 && f.message.length < 1000);
    assert.equal([...r.pages][2]!.title, 'BOM');
  });

  it('groups a site-wide problem into one finding listing every page', () => {
    const pages = Array.from({ length: 5 }, () => page({ headers: headers({ 'x-content-type-options': undefined }) }));
    const r = runAnalyzers(snap(pages));
    const xcto = r.findings.filter((f) => f.analyzer === 'SEC_XCTO_MISSING');
    assert.equal(xcto.length, 1);
    assert.equal(xcto[0]!.urls.length, 5);
    assert.match(xcto[0]!.message, /Found at 5 URLs\./);
  });
});
