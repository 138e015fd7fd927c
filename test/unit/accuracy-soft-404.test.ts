import assert from 'node:assert/strict';
import { soft404 } from '../../src/analyzers/best-practices-site';
import { parsePages } from '../../src/analyzers/parse';
import type { CrawlSnapshot, NotFoundProbe } from '../../src/analyzers/snapshot';
import type { AnalyzerOutcome } from '../../src/analyzers/types';

/** Issue 23 item 5: only a probe answering 200 is a soft 404; a real custom 404 page is never "nearly empty". */

const ORIGIN = 'https://example.com';
const PROBE = `${ORIGIN}/da-404-check-k2x9`;

function run(probe: NotFoundProbe): AnalyzerOutcome {
  const s: CrawlSnapshot = {
    origin: ORIGIN,
    robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
    pages: [],
    notFoundProbe: probe,
  };
  return soft404.run(s, parsePages(s.pages));
}

const answer = (status: number, body: string | null, finalUrl = PROBE): NotFoundProbe =>
  ({ kind: 'fetched', url: PROBE, finalUrl, status, body }) as NotFoundProbe;

/** A site's own error page: header, navigation and footer, but only a few words of its own. */
const CUSTOM_404 = `<!DOCTYPE html><html lang="en"><head><title>Not found</title><style>nav a{margin:1em}</style></head>
<body><header><a href="/">Acme</a></header>
<nav><a href="/">Home</a><a href="/docs/">Docs</a><a href="/blog/">Blog</a><a href="/search">Search</a></nav>
<main><h1>404</h1><p>This page does not exist.</p></main>
<footer><a href="/contact">Contact</a> © Acme</footer></body></html>`;

const HOME = `<!DOCTYPE html><html lang="en"><head><title>Acme</title></head><body><h1>Welcome to Acme</h1>
<nav><a href="/docs/">Docs</a></nav><p>We make anvils.</p></body></html>`;
const THIN_NOT_FOUND = '<html><body>Not Found</body></html>';

describe('accuracy: BP_SOFT_404 only for a 200 answer', () => {
  it('a custom 404 page with header, navigation and footer passes (it was "nearly empty" before)', () => {
    const out = run(answer(404, CUSTOM_404));
    assert.equal(out.status, 'pass');
    assert.deepEqual(out.findings, []);
  });

  it('a thin 404 or 410 error page still passes: its status says "not found"', () => {
    for (const status of [404, 410]) assert.equal(run(answer(status, THIN_NOT_FOUND)).status, 'pass', `${status}`);
    assert.equal(run(answer(404, '')).status, 'pass');
    assert.equal(run(answer(404, null)).status, 'pass');
  });

  it('other non-2xx answers are not soft 404s (server errors and redirect loops belong to other checks)', () => {
    for (const status of [403, 500, 503, 301])
      assert.equal(run(answer(status, THIN_NOT_FOUND)).status, 'pass', `${status}`);
  });

  it('control: a 200 answer that is the home page is reported, with the redirect named', () => {
    const out = run(answer(200, HOME, `${ORIGIN}/`));
    assert.equal(out.status, 'fail');
    assert.equal(out.findings.length, 1);
    assert.match(
      out.findings[0]!.message,
      /answers HTTP 200 after redirecting to https:\/\/example\.com\/ instead of 404/,
    );
    assert.equal(out.findings[0]!.evidence, `GET ${PROBE} → HTTP 200 OK after redirecting to ${ORIGIN}/`);
    assert.deepEqual(out.findings[0]!.urls, [PROBE]);
  });

  it('control: a thin "not found" page served with 200 is reported, however it reads', () => {
    for (const body of [THIN_NOT_FOUND, CUSTOM_404, null]) {
      const out = run(answer(200, body));
      assert.equal(out.status, 'fail');
      assert.equal(out.findings[0]!.evidence, `GET ${PROBE} → HTTP 200 OK`);
    }
  });

  it('an unreachable probe is not judged', () => {
    assert.equal(
      run({ kind: 'unreachable', url: PROBE, error: 'ECONNRESET' } as NotFoundProbe).status,
      'not_applicable',
    );
  });
});
