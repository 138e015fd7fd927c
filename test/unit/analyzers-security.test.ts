import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodeTls from 'node:tls';
import { parsePages } from '../../src/analyzers/parse';
import type { CrawlSnapshot, HeaderMap, SnapshotPage, TlsFacts } from '../../src/analyzers/snapshot';
import type { Analyzer, AnalyzerOutcome } from '../../src/analyzers/types';
import {
  httpNotRedirected,
  tlsCertExpiring,
  tlsCertInvalid,
  tlsLegacyProtocol,
  tlsWeakKey,
} from '../../src/analyzers/security-transport';
import { corsCredentialedAny, securityTxtMissing } from '../../src/analyzers/security-content';
import { cookieInsecure, parseSetCookie } from '../../src/analyzers/security-cookies';
import { cspUnsafe } from '../../src/analyzers/security-csp';
import { mixedContent, sriMissing } from '../../src/analyzers/security-subresources';
import { collectTlsFacts } from '../../src/crawl/tls-facts';

const ORIGIN = 'https://example.com';
const NOW = '2026-11-21T06:00:00.000Z';
const DAY = 86_400_000;

const BASE_HEADERS: HeaderMap = { 'content-type': 'text/html; charset=utf-8' };

let n = 0;
function page(over: Partial<SnapshotPage> & { path?: string; origin?: string } = {}): SnapshotPage {
  const url = `${over.origin ?? ORIGIN}${over.path ?? `/p${n++}`}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: BASE_HEADERS,
    body: '<!DOCTYPE html><html><head><title>t</title></head><body></body></html>',
    ttfbMs: 100,
    bytes: 1000,
    depth: 0,
    redirectChain: [],
    ...over,
  };
}

function snap(pages: SnapshotPage[], extra: Partial<CrawlSnapshot> = {}): CrawlSnapshot {
  return {
    origin: ORIGIN,
    robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
    pages,
    observedAt: NOW,
    ...extra,
  };
}

function run(a: Analyzer, pages: SnapshotPage[], extra: Partial<CrawlSnapshot> = {}): AnalyzerOutcome {
  const s = snap(pages, extra);
  return a.run(s, parsePages(s.pages));
}

function site(a: Analyzer, extra: Partial<CrawlSnapshot>): AnalyzerOutcome {
  return run(a, [page({ path: '/' })], extra);
}

function withHtml(
  body: string,
  headers: HeaderMap = BASE_HEADERS,
  over: Partial<SnapshotPage> & { path?: string; origin?: string } = {},
): SnapshotPage {
  return page({
    body: `<!DOCTYPE html><html><head><title>t</title></head><body>${body}</body></html>`,
    headers,
    ...over,
  });
}

// ── transport ──────────────────────────────────────────────────────────────────────────────────

describe('SEC_HTTP_NOT_REDIRECTED', () => {
  const httpUrl = 'http://example.com/';
  it('passes when the first redirect goes to https on the same host', () => {
    const r = site(httpNotRedirected, {
      httpsRedirect: {
        ok: true,
        facts: {
          httpUrl,
          chain: [{ url: httpUrl, status: 301, location: 'https://example.com/' }],
          finalUrl: 'https://example.com/',
          sameHostHttpsFirst: true,
        },
      },
    });
    assert.equal(r.status, 'pass');
    assert.equal(r.score, 1);
  });
  it('fails without a redirect, citing the http URL', () => {
    const r = site(httpNotRedirected, {
      httpsRedirect: { ok: true, facts: { httpUrl, chain: [], finalUrl: httpUrl, sameHostHttpsFirst: false } },
    });
    assert.equal(r.status, 'fail');
    assert.deepEqual(r.findings[0]!.urls, [httpUrl]);
    assert.match(r.findings[0]!.evidence, /no redirect/);
  });
  it('fails when the first hop goes to another host, showing the chain', () => {
    const r = site(httpNotRedirected, {
      httpsRedirect: {
        ok: true,
        facts: {
          httpUrl,
          chain: [
            { url: httpUrl, status: 302, location: 'http://www.example.com/' },
            { url: 'http://www.example.com/', status: 301, location: 'https://www.example.com/' },
          ],
          finalUrl: 'https://www.example.com/',
          sameHostHttpsFirst: false,
        },
      },
    });
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.evidence, /302 http:\/\/www\.example\.com\//);
    assert.match(r.findings[0]!.message, /only after first redirecting elsewhere/);
  });
  it('is not_applicable without facts and error when the probe failed', () => {
    assert.equal(site(httpNotRedirected, {}).status, 'not_applicable');
    assert.equal(site(httpNotRedirected, { httpsRedirect: { ok: false, error: 'timeout' } }).status, 'error');
  });
});

function tls(
  cert: Partial<NonNullable<TlsFacts['certificate']>> = {},
  over: Partial<TlsFacts> = {},
): Partial<CrawlSnapshot> {
  return {
    tls: {
      ok: true,
      facts: {
        httpsAvailable: true,
        protocols: ['TLSv1.3'],
        certificate: {
          trusted: true,
          hostnameMatches: true,
          validFrom: '2026-09-01T00:00:00.000Z',
          validTo: '2027-03-01T00:00:00.000Z',
          issuer: "CN=R11, O=Let's Encrypt, C=US",
          keyType: 'EC',
          keyBits: 256,
          ...cert,
        },
        ...over,
      },
    },
  };
}

describe('SEC_TLS_CERT_INVALID', () => {
  it('passes a trusted, matching, current certificate', () => {
    assert.equal(site(tlsCertInvalid, tls()).status, 'pass');
  });
  it('fails an untrusted chain with the error code in evidence', () => {
    const r = site(tlsCertInvalid, tls({ trusted: false, error: 'DEPTH_ZERO_SELF_SIGNED_CERT' }));
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.evidence, /DEPTH_ZERO_SELF_SIGNED_CERT/);
    assert.deepEqual(r.findings[0]!.urls, [ORIGIN]);
  });
  it('fails a name mismatch and an expired certificate', () => {
    const mismatch = site(tlsCertInvalid, tls({ hostnameMatches: false }));
    assert.equal(mismatch.status, 'fail');
    assert.match(mismatch.findings[0]!.message, /does not cover the host name example\.com/);
    const expired = site(tlsCertInvalid, tls({ validTo: '2026-11-01T00:00:00.000Z' }));
    assert.equal(expired.status, 'fail');
    assert.match(expired.findings[0]!.message, /expired on 2026-11-01/);
  });
  it('is not_applicable without TLS facts or handshake, error when the probe failed', () => {
    assert.equal(site(tlsCertInvalid, {}).status, 'not_applicable');
    assert.equal(
      site(tlsCertInvalid, { tls: { ok: true, facts: { httpsAvailable: false } } }).status,
      'not_applicable',
    );
    assert.equal(site(tlsCertInvalid, { tls: { ok: false, error: 'ECONNRESET' } }).status, 'error');
  });
});

describe('SEC_TLS_CERT_EXPIRING', () => {
  const inDays = (d: number) => new Date(Date.parse(NOW) + d * DAY).toISOString();
  it('passes beyond 30 days', () => {
    assert.equal(site(tlsCertExpiring, tls({ validTo: inDays(31) })).status, 'pass');
  });
  it('warns within 30 days (medium) and fails within 7 (high), saying how many days remain', () => {
    const warn = site(tlsCertExpiring, tls({ validTo: inDays(20.5) }));
    assert.equal(warn.status, 'warn');
    assert.match(warn.findings[0]!.evidence, /^20 days remaining/);
    assert.equal(warn.findings[0]!.severity, undefined);
    const fail = site(tlsCertExpiring, tls({ validTo: inDays(3.2) }));
    assert.equal(fail.status, 'fail');
    assert.match(fail.findings[0]!.evidence, /^3 days remaining/);
    assert.equal(fail.findings[0]!.severity, 'high');
    assert.match(site(tlsCertExpiring, tls({ validTo: inDays(0.5) })).findings[0]!.evidence, /less than a day/);
  });
  it('leaves an expired certificate to SEC_TLS_CERT_INVALID; error on an unparsable date', () => {
    assert.equal(site(tlsCertExpiring, tls({ validTo: inDays(-2) })).status, 'not_applicable');
    assert.equal(site(tlsCertExpiring, tls({ validTo: 'garbage' })).status, 'error');
    assert.equal(site(tlsCertExpiring, { tls: { ok: false, error: 'x' } }).status, 'error');
  });
});

describe('SEC_TLS_LEGACY_PROTOCOL', () => {
  it('passes when the legacy probe found no legacy version accepted', () => {
    assert.equal(
      site(tlsLegacyProtocol, tls({}, { legacyProtocols: { tried: ['TLSv1', 'TLSv1.1'], accepted: [] } })).status,
      'pass',
    );
  });
  it('fails when TLS 1.0 or 1.1 is accepted', () => {
    const r = site(
      tlsLegacyProtocol,
      tls({}, { protocols: ['TLSv1.3'], legacyProtocols: { tried: ['TLSv1', 'TLSv1.1'], accepted: ['TLSv1.1'] } }),
    );
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.evidence, /accepted protocols: TLSv1\.1, TLSv1\.3/);
    assert.equal(site(tlsLegacyProtocol, tls({}, { protocols: ['TLSv1'] })).status, 'fail');
  });
  it('is not_applicable when only the normal handshake was observed', () => {
    assert.equal(site(tlsLegacyProtocol, tls()).status, 'not_applicable');
    assert.equal(site(tlsLegacyProtocol, {}).status, 'not_applicable');
    assert.equal(site(tlsLegacyProtocol, { tls: { ok: false, error: 'x' } }).status, 'error');
  });
});

describe('SEC_TLS_WEAK_KEY', () => {
  it('passes RSA 2048, EC 256 and Ed25519', () => {
    assert.equal(site(tlsWeakKey, tls({ keyType: 'RSA', keyBits: 2048 })).status, 'pass');
    assert.equal(site(tlsWeakKey, tls({ keyType: 'EC', keyBits: 256 })).status, 'pass');
    assert.equal(site(tlsWeakKey, tls({ keyType: 'ed25519', keyBits: 256 })).status, 'pass');
  });
  it('fails RSA 1024 and EC 192', () => {
    const r = site(tlsWeakKey, tls({ keyType: 'RSA', keyBits: 1024 }));
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.evidence, /key RSA 1024 bits/);
    assert.equal(site(tlsWeakKey, tls({ keyType: 'EC', keyBits: 192 })).status, 'fail');
  });
  it('is not_applicable / error like the other TLS checks', () => {
    assert.equal(site(tlsWeakKey, {}).status, 'not_applicable');
    assert.equal(site(tlsWeakKey, { tls: { ok: false, error: 'x' } }).status, 'error');
  });
});

// ── content ────────────────────────────────────────────────────────────────────────────────────

describe('SEC_CSP_UNSAFE', () => {
  const csp = (v: string | string[]) => ({ ...BASE_HEADERS, 'content-security-policy': v });
  it('passes a strict policy, and nonce-neutralised unsafe-inline', () => {
    assert.equal(run(cspUnsafe, [page({ headers: csp("default-src 'self'; object-src 'none'") })]).status, 'pass');
    assert.equal(
      run(cspUnsafe, [
        page({
          headers: csp("script-src 'nonce-abc' 'unsafe-inline' 'strict-dynamic' https: http:; object-src 'none'"),
        }),
      ]).status,
      'pass',
    );
    assert.equal(run(cspUnsafe, [page({ headers: csp("default-src 'none'") })]).status, 'pass');
  });
  it('fails unsafe-inline, unsafe-eval, data: and http: script sources, with the policy as evidence', () => {
    const r = run(cspUnsafe, [
      page({
        headers: csp(
          "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' data: http://cdn.example.net; object-src 'none'",
        ),
      }),
    ]);
    assert.equal(r.status, 'fail');
    const f = r.findings[0]!;
    for (const w of ["'unsafe-inline'", "'unsafe-eval'", 'data: URLs', 'http: sources'])
      assert.ok(f.message.includes(w), w);
    assert.match(f.evidence, /^Content-Security-Policy: default-src 'self'; script-src/);
  });
  it('falls back to default-src and checks meta policies', () => {
    const r = run(cspUnsafe, [
      withHtml('', BASE_HEADERS, {
        body: `<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'self' 'unsafe-inline'; object-src 'none'"></head></html>`,
      }),
    ]);
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.message, /default-src allows 'unsafe-inline'/);
    assert.match(r.findings[0]!.evidence, /^<meta http-equiv/);
  });
  it('warns on a missing object-src', () => {
    const r = run(cspUnsafe, [page({ headers: csp("default-src 'self'") })]);
    assert.equal(r.status, 'warn');
    assert.match(r.findings[0]!.message, /no object-src 'none'/);
  });
  it('ignores report-only policies and pages without CSP', () => {
    assert.equal(
      run(cspUnsafe, [
        page({ headers: { ...BASE_HEADERS, 'content-security-policy-report-only': "script-src 'unsafe-inline'" } }),
      ]).status,
      'not_applicable',
    );
  });
  it('a second policy that blocks the unsafe source protects the page', () => {
    assert.equal(
      run(cspUnsafe, [
        page({ headers: csp(["script-src 'self' 'unsafe-inline'; object-src 'none'", "script-src 'self'"]) }),
      ]).status,
      'pass',
    );
    assert.equal(run(cspUnsafe, [page({ headers: csp("frame-ancestors 'self'") })]).status, 'fail');
  });
});

describe('SEC_COOKIE_INSECURE', () => {
  const cookies = (v: string | string[], path?: string, origin?: string) =>
    page({ headers: { ...BASE_HEADERS, 'set-cookie': v }, ...(path ? { path } : {}), ...(origin ? { origin } : {}) });
  it('passes secure cookies and is not_applicable without cookies', () => {
    assert.equal(
      run(cookieInsecure, [cookies(['sessionid=abc; Path=/; Secure; HttpOnly; SameSite=Lax', 'theme=dark; Secure'])])
        .status,
      'pass',
    );
    assert.equal(run(cookieInsecure, [page()]).status, 'not_applicable');
  });
  it('fails a cookie without Secure on https, naming it and redacting its value', () => {
    const r = run(cookieInsecure, [cookies('theme=dark-secret; Path=/')]);
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.message, /Cookie "theme" is set without the Secure attribute/);
    assert.equal(r.findings[0]!.evidence, 'Set-Cookie: theme=…; Path=/');
    assert.ok(!r.findings[0]!.evidence.includes('dark-secret'));
  });
  it('fails a session cookie without HttpOnly (also on http), but not a CSRF token', () => {
    const r = run(cookieInsecure, [cookies('PHPSESSID=x; Path=/', '/', 'http://example.com')]);
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.message, /PHPSESSID" looks like a session cookie but lacks HttpOnly/);
    assert.equal(run(cookieInsecure, [cookies('XSRF-TOKEN=x; Secure; SameSite=Strict')]).status, 'pass');
  });
  it('fails SameSite=None without Secure and warns on an invalid SameSite', () => {
    const none = run(cookieInsecure, [cookies('track=1; SameSite=None', '/', 'http://example.com')]);
    assert.equal(none.status, 'fail');
    assert.match(none.findings[0]!.message, /SameSite=None without Secure/);
    const bad = run(cookieInsecure, [cookies('pref=1; Secure; SameSite=Loose')]);
    assert.equal(bad.status, 'warn');
    assert.match(bad.findings[0]!.message, /invalid SameSite value "Loose"/);
  });
  it('skips deletion cookies and groups one cookie across pages', () => {
    assert.equal(run(cookieInsecure, [cookies('sid=; Max-Age=0')]).status, 'pass');
    const r = run(cookieInsecure, [cookies('a=1'), cookies('a=2')]);
    assert.equal(r.findings.length, 1);
    assert.equal(r.findings[0]!.urls.length, 2);
  });
  it('parses Set-Cookie lines', () => {
    const c = parseSetCookie('id=a=b; Domain=.example.com; SameSite=Lax; secure')!;
    assert.equal(c.name, 'id');
    assert.deepEqual([...c.attributes.keys()], ['domain', 'samesite', 'secure']);
    assert.equal(parseSetCookie('garbage'), null);
  });
});

describe('SEC_CORS_CREDENTIALED_ANY', () => {
  const probe = (headers: HeaderMap): Partial<CrawlSnapshot> => ({
    corsProbe: {
      ok: true,
      facts: { url: `${ORIGIN}/`, originSent: 'https://cors-probe.invalid', status: 200, headers },
    },
  });
  it('fails a reflected origin with credentials', () => {
    const r = site(
      corsCredentialedAny,
      probe({
        'access-control-allow-origin': 'https://cors-probe.invalid',
        'access-control-allow-credentials': 'true',
      }),
    );
    assert.equal(r.status, 'fail');
    assert.match(
      r.findings[0]!.evidence,
      /Access-Control-Allow-Origin: https:\/\/cors-probe\.invalid; Access-Control-Allow-Credentials: true/,
    );
  });
  it('passes "*", a fixed origin, or no credentials', () => {
    assert.equal(
      site(
        corsCredentialedAny,
        probe({ 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' }),
      ).status,
      'pass',
    );
    assert.equal(
      site(
        corsCredentialedAny,
        probe({ 'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-credentials': 'true' }),
      ).status,
      'pass',
    );
    assert.equal(
      site(corsCredentialedAny, probe({ 'access-control-allow-origin': 'https://cors-probe.invalid' })).status,
      'pass',
    );
    assert.equal(site(corsCredentialedAny, probe({})).status, 'pass');
  });
  it('is not_applicable without a probe and error when it failed', () => {
    assert.equal(site(corsCredentialedAny, {}).status, 'not_applicable');
    assert.equal(site(corsCredentialedAny, { corsProbe: { ok: false, error: 'timeout' } }).status, 'error');
  });
});

describe('SEC_SRI_MISSING', () => {
  it('passes same-origin scripts and external scripts with integrity', () => {
    const body =
      '<script src="/app.js"></script><script src="https://example.com/b.js"></script>' +
      '<script src="https://cdn.example.net/lib.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script><script>inline()</script>';
    assert.equal(run(sriMissing, [withHtml(body)]).status, 'pass');
  });
  it('fails external scripts without integrity, over http, protocol-relative or with a bogus hash', () => {
    const body =
      '<script src="https://cdn.example.net/lib.js"></script><script src="http://example.com/x.js"></script>' +
      '<script src="//cdn.example.net/y.js" integrity="sha384-abc"></script><script src="https://cdn.example.net/z.js" integrity="md5-abc"></script>';
    const r = run(sriMissing, [withHtml(body)]);
    assert.equal(r.status, 'fail');
    assert.equal(r.findings.length, 4);
    const msgs = r.findings.map((f) => f.message).join('\n');
    assert.match(msgs, /from cdn\.example\.net is loaded without an integrity attribute/);
    assert.match(msgs, /over plain http:\/\//);
    assert.match(msgs, /protocol-relative/);
    assert.match(msgs, /without a valid sha256\/384\/512 hash/);
    assert.ok(r.findings.some((f) => f.evidence === '<script src="https://cdn.example.net/lib.js"></script>'));
  });
  it('is not_applicable without HTML pages', () => {
    assert.equal(
      run(sriMissing, [page({ headers: { 'content-type': 'application/json' }, body: '{}' })]).status,
      'not_applicable',
    );
  });
});

describe('SEC_MIXED_CONTENT', () => {
  it('passes https and relative subresources, and ignores non-fetching links', () => {
    const body =
      '<img src="/a.png" srcset="https://cdn.example.net/a2.png 2x"><link rel="canonical" href="http://example.com/"><a href="http://other.example/">x</a><script src="https://x.example/s.js"></script>';
    assert.equal(run(mixedContent, [withHtml(body)]).status, 'pass');
  });
  it('fails http subresources of every kind on an https page', () => {
    const body =
      '<script src="http://cdn.example.net/a.js"></script><link rel="stylesheet" href="http://cdn.example.net/a.css">' +
      '<img src="http://img.example.net/a.png"><iframe src="http://w.example.net/"></iframe><audio src="http://m.example.net/a.mp3"></audio>' +
      '<video poster="http://m.example.net/p.jpg"><source src="http://m.example.net/v.mp4"></video><object data="http://m.example.net/o.swf"></object>' +
      '<img src="/ok.png" srcset="http://img.example.net/b.png 2x">';
    const r = run(mixedContent, [withHtml(body)]);
    assert.equal(r.status, 'fail');
    const tags = r.findings.map((f) => /<(\w+)>/.exec(f.message)![1]).sort();
    assert.deepEqual(tags, ['audio', 'iframe', 'img', 'img', 'link', 'object', 'script', 'source', 'video']);
    assert.ok(r.findings.some((f) => f.evidence === '<script src="http://cdn.example.net/a.js"></script>'));
  });
  it('resolves relative URLs against an http <base>', () => {
    const body = '<img src="logo.png">';
    const r = run(mixedContent, [
      withHtml(body, BASE_HEADERS, {
        body: `<html><head><base href="http://static.example.com/"></head><body>${body}</body></html>`,
      }),
    ]);
    assert.equal(r.status, 'fail');
  });
  it('warns when upgrade-insecure-requests is set; does not apply to http pages', () => {
    const r = run(mixedContent, [
      withHtml('<img src="http://img.example.net/a.png">', {
        ...BASE_HEADERS,
        'content-security-policy': 'upgrade-insecure-requests',
      }),
    ]);
    assert.equal(r.status, 'warn');
    assert.equal(
      run(mixedContent, [
        withHtml('<img src="http://img.example.net/a.png">', BASE_HEADERS, { origin: 'http://example.com' }),
      ]).status,
      'not_applicable',
    );
  });
});

describe('SEC_SECURITY_TXT_MISSING', () => {
  const url = `${ORIGIN}/.well-known/security.txt`;
  const fetched = (
    body: string,
    status = 200,
    headers: HeaderMap = { 'content-type': 'text/plain; charset=utf-8' },
    at = url,
  ): Partial<CrawlSnapshot> => ({ securityTxt: { kind: 'fetched', url: at, status, headers, body } });
  it('passes with Contact and a future Expires', () => {
    assert.equal(
      site(
        securityTxtMissing,
        fetched('# hi\nContact: mailto:security@example.com\nExpires: 2027-06-01T00:00:00.000Z\n'),
      ).status,
      'pass',
    );
  });
  it('fails when absent (404 or an HTML catch-all page) or without Contact', () => {
    const r = site(securityTxtMissing, fetched('not found', 404));
    assert.equal(r.status, 'fail');
    assert.equal(r.findings[0]!.evidence, `GET ${url} → 404 (text/plain)`);
    assert.equal(
      site(securityTxtMissing, fetched('<html>home</html>', 200, { 'content-type': 'text/html' })).status,
      'fail',
    );
    assert.equal(site(securityTxtMissing, fetched('Expires: 2027-06-01T00:00:00.000Z')).status, 'fail');
  });
  it('warns without Expires, with a past Expires, or over http', () => {
    assert.equal(site(securityTxtMissing, fetched('Contact: mailto:s@example.com')).status, 'warn');
    const past = site(securityTxtMissing, fetched('Contact: mailto:s@example.com\nExpires: 2025-01-01T00:00:00Z'));
    assert.equal(past.status, 'warn');
    assert.match(past.findings[0]!.message, /expired on 2025-01-01/);
    assert.match(past.findings[0]!.evidence, /Contact: mailto:s@example\.com \| Expires/);
    assert.equal(
      site(
        securityTxtMissing,
        fetched(
          'Contact: mailto:s@example.com\nExpires: 2027-06-01T00:00:00Z',
          200,
          { 'content-type': 'text/plain' },
          'http://example.com/.well-known/security.txt',
        ),
      ).status,
      'warn',
    );
  });
  it('is not_applicable when not fetched and error when unreachable', () => {
    assert.equal(site(securityTxtMissing, {}).status, 'not_applicable');
    assert.equal(
      site(securityTxtMissing, { securityTxt: { kind: 'unreachable', url, error: 'ECONNRESET' } }).status,
      'error',
    );
  });
});

// ── collectTlsFacts against local servers on 127.0.0.1 only ───────────────────────────────────────

describe('collectTlsFacts (loopback servers, certificates made with the openssl CLI)', function () {
  this.timeout(30_000);
  let dir = '';
  const pem: Record<string, { key: string; cert: string }> = {};
  const servers: (net.Server | nodeTls.Server)[] = [];
  const sockets = new Set<net.Socket>();

  function openssl(args: string[]): void {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  }
  function load(name: string): void {
    pem[name] = {
      key: fs.readFileSync(path.join(dir, `${name}.key`), 'utf8'),
      cert: fs.readFileSync(path.join(dir, `${name}.crt`), 'utf8'),
    };
  }
  async function listen(server: net.Server | nodeTls.Server): Promise<number> {
    servers.push(server);
    server.on('connection', (s: net.Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  }
  function tlsServer(name: string, extra: nodeTls.TlsOptions = {}): Promise<number> {
    return listen(nodeTls.createServer({ ...pem[name]!, ...extra }, (s) => s.end()));
  }
  const probe = (port: number, host = 'audit.test', ca?: string) =>
    collectTlsFacts(host, port, { connectTimeoutMs: 3_000, lookupAddress: '127.0.0.1', ...(ca ? { ca } : {}) });

  before(function () {
    try {
      execFileSync('openssl', ['version'], { stdio: 'pipe' });
    } catch {
      this.skip();
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-facts-'));
    const subj = (cn: string) => ['-subj', `/CN=${cn}`, '-addext', `subjectAltName=DNS:${cn}`];
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'rsa.key',
      '-out',
      'rsa.crt',
      '-days',
      '90',
      ...subj('audit.test'),
    ]);
    openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ec.key',
      '-out',
      'ec.crt',
      '-days',
      '5',
      ...subj('audit.test'),
    ]);
    // An expired certificate without faking the clock: `openssl ca` accepts explicit start and end dates.
    fs.mkdirSync(path.join(dir, 'db'));
    fs.writeFileSync(path.join(dir, 'db/index.txt'), '');
    fs.writeFileSync(path.join(dir, 'db/serial'), '01\n');
    fs.writeFileSync(
      path.join(dir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = d',
        '[d]',
        'database = db/index.txt',
        'new_certs_dir = db',
        'serial = db/serial',
        'default_md = sha256',
        'policy = p',
        'copy_extensions = copy',
        'unique_subject = no',
        '[p]',
        'commonName = supplied',
        '',
      ].join('\n'),
    );
    openssl([
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'expired.key',
      '-out',
      'expired.csr',
      ...subj('audit.test'),
    ]);
    openssl([
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-selfsign',
      '-keyfile',
      'expired.key',
      '-in',
      'expired.csr',
      '-out',
      'expired.crt',
      '-startdate',
      '20200101000000Z',
      '-enddate',
      '20200201000000Z',
      '-notext',
    ]);
    for (const name of ['rsa', 'ec', 'expired']) load(name);
  });

  after(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('records a trusted, matching certificate, its dates, issuer and key; legacy versions refused', async () => {
    const port = await tlsServer('rsa');
    const facts = await probe(port, 'audit.test', pem.rsa!.cert);
    assert.equal(facts.httpsAvailable, true);
    assert.deepEqual(facts.protocols, ['TLSv1.3']);
    assert.deepEqual(facts.legacyProtocols, { tried: ['TLSv1', 'TLSv1.1'], accepted: [] });
    const c = facts.certificate!;
    assert.equal(c.trusted, true);
    assert.equal(c.hostnameMatches, true);
    assert.equal(c.error, undefined);
    assert.equal(c.issuer, 'CN=audit.test');
    assert.equal(c.keyType, 'RSA');
    assert.equal(c.keyBits, 2048);
    const days = (Date.parse(c.validTo) - Date.now()) / DAY;
    assert.ok(days > 88 && days < 91, String(days));
    assert.match(c.validFrom, /^\d{4}-\d\d-\d\dT/);
    assert.equal(
      tlsCertInvalid.run(snap([], { observedAt: new Date().toISOString(), tls: { ok: true, facts } }), []).status,
      'pass',
    );
    assert.equal(tlsLegacyProtocol.run(snap([], { tls: { ok: true, facts } }), []).status, 'pass');
  });

  it('flags a self-signed chain and a host name mismatch', async () => {
    const port = await tlsServer('rsa');
    const untrusted = (await probe(port)).certificate!;
    assert.equal(untrusted.trusted, false);
    assert.match(untrusted.error ?? '', /SELF_SIGNED/);
    const wrongHost = (await probe(port, 'other.test', pem.rsa!.cert)).certificate!;
    assert.equal(wrongHost.trusted, true);
    assert.equal(wrongHost.hostnameMatches, false);
    assert.equal(wrongHost.error, 'ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('sees an expired certificate, which SEC_TLS_CERT_INVALID fails', async () => {
    const port = await tlsServer('expired');
    const facts = await probe(port, 'audit.test', pem.expired!.cert);
    const c = facts.certificate!;
    assert.equal(c.validTo, '2020-02-01T00:00:00.000Z');
    assert.equal(c.trusted, false);
    assert.equal(c.error, 'CERT_HAS_EXPIRED');
    const r = tlsCertInvalid.run(snap([], { observedAt: NOW, tls: { ok: true, facts } }), []);
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.message, /expired on 2020-02-01/);
  });

  it('reads EC key sizes, and SEC_TLS_CERT_EXPIRING fails a certificate within 7 days', async () => {
    const port = await tlsServer('ec');
    const facts = await probe(port, 'audit.test', pem.ec!.cert);
    assert.equal(facts.certificate!.keyType, 'EC');
    assert.equal(facts.certificate!.keyBits, 256);
    const r = tlsCertExpiring.run(snap([], { observedAt: new Date().toISOString(), tls: { ok: true, facts } }), []);
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.evidence, /^4 days remaining/);
  });

  it('detects TLS 1.0 and 1.1 acceptance', async () => {
    const port = await tlsServer('rsa', { minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
    const facts = await probe(port);
    assert.deepEqual(facts.legacyProtocols!.accepted, ['TLSv1', 'TLSv1.1']);
    assert.deepEqual(facts.protocols, ['TLSv1.3', 'TLSv1', 'TLSv1.1']);
    assert.equal(tlsLegacyProtocol.run(snap([], { tls: { ok: true, facts } }), []).status, 'fail');
  });

  it('reports no HTTPS for a plain-HTTP listener or a closed port, and throws on a silent one', async () => {
    const httpPort = await listen(
      net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n')),
    );
    assert.deepEqual(await probe(httpPort), { httpsAvailable: false });
    const closed = await listen(net.createServer());
    await new Promise((resolve) => servers.pop()!.close(resolve));
    assert.deepEqual(await probe(closed), { httpsAvailable: false });
    const silent = await listen(
      net.createServer(() => {
        /* never answers */
      }),
    );
    await assert.rejects(
      collectTlsFacts('audit.test', silent, { connectTimeoutMs: 200, lookupAddress: '127.0.0.1' }),
      (e: NodeJS.ErrnoException) => e.code === 'ETIMEDOUT',
    );
  });
});
