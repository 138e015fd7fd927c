import assert from 'node:assert/strict';
import { runAnalyzers } from '../../src/analyzers';
import { catalogEntry } from '../../src/analyzers/catalog';
import { FindingIdAllocator, makeFinding } from '../../src/analyzers/findings';
import type { CrawlSnapshot, HeaderMap, SnapshotPage } from '../../src/analyzers/snapshot';
import { syntheticAudit } from '../../src/audits/synthetic';
import { findingFingerprint, FINGERPRINT_PATTERN } from '../../src/monitoring/fingerprint';
import type { Finding } from '../../src/schemas/audit';
import { syntheticInput } from '../support/synthetic-input';

const ORIGIN = 'https://example.com';

/** Headers with several problems: no HSTS, a versioned Server header, X-Powered-By, an insecure session cookie. */
const HEADERS: HeaderMap = {
  'content-type': 'text/html; charset=utf-8',
  server: 'nginx/1.18.0',
  'x-powered-by': 'PHP/8.1.2',
  'set-cookie': ['sessionid=abc; Path=/', 'theme=dark; Path=/; Secure'],
};

function page(path: string, body: string, headers: HeaderMap = HEADERS): SnapshotPage {
  const url = `${ORIGIN}${path}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers,
    body: `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Page ${path} of the example site</title></head><body>${body}</body></html>`,
    ttfbMs: 100,
    bytes: 10_000,
    depth: path === '/' ? 0 : 1,
    redirectChain: [],
  };
}

function snapshot(pages: SnapshotPage[]): CrawlSnapshot {
  return { origin: ORIGIN, robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' }, pages };
}

const PAGES = [
  page('/', '<h1>Home</h1><img src="/logo.png">'),
  page('/a', '<h1>A</h1><img src="/a.png"><img src="/logo.png">'),
  page('/b', '<p>No heading here</p>'),
  page('/c', '<h1>C</h1><img src="/c.png" alt="C">'),
  page('/d', '<h1>D</h1>'),
];

/** Several problems of each kind, spread over pages, so many analyzers report several findings. */
const MANY_BODY = [
  '<h1>One</h1><h3>Skipped</h3><a href="/x">click here</a><a href="/y">read more</a><div role="buton">B</div>' +
    '<img src="/one.png"><input type="text" name="q"><button></button>',
  '<h1>Two</h1><h4>Deep</h4><a href="/x">click here</a><a href="javascript:void(0)">Chat</a>' +
    '<span aria-foo="1">F</span><img src="/two.png"><input type="email" name="mail"><a href="/z"></a>',
  '<h1>Three</h1><a onclick="gift()">Gift</a><div role="checkbox" tabindex="0">C</div><img src="/one.png" width="3">' +
    '<script type="application/ld+json">{"name":"x"}</script><script type="application/ld+json">{oops</script>',
];
const MANY = MANY_BODY.map((b, i) => page(`/m${i + 1}`, b));
const MULTI = [
  'SEO_LINK_TEXT_GENERIC',
  'SEO_ANCHOR_NOT_CRAWLABLE',
  'A11Y_ARIA_INVALID',
  'A11Y_HEADING_ORDER',
  'A11Y_IMG_ALT_MISSING',
  'A11Y_FORM_LABEL_MISSING',
  'A11Y_CONTROL_NAME_MISSING',
  'SEO_STRUCTURED_DATA_INVALID',
];

/** Deterministic shuffles: every rotation, and the reverse order. */
function orders<T>(items: readonly T[]): T[][] {
  const out = items.map((_, i) => [...items.slice(i), ...items.slice(0, i)]);
  out.push([...items].reverse());
  return out;
}

function fingerprints(findings: readonly Finding[]): string[] {
  return [...new Set(findings.map((f) => f.fingerprint))].sort();
}

describe('finding fingerprints', () => {
  it('have the documented form and depend on analyzer and subject only', () => {
    const fp = findingFingerprint('SEC_HSTS_MISSING');
    assert.match(fp, FINGERPRINT_PATTERN);
    assert.match(fp, /^fp_[0-9a-z]{13}$/);
    // Pinned: a release that rewords the catalog or the messages must not move fingerprints.
    assert.equal(fp, 'fp_00u3fkhh8pb00');
    assert.equal(fp, findingFingerprint('SEC_HSTS_MISSING', ''));
    assert.equal(
      findingFingerprint('SEC_COOKIE_INSECURE', ' sid  secure '),
      findingFingerprint('SEC_COOKIE_INSECURE', 'sid secure'),
    );
    assert.notEqual(
      findingFingerprint('SEC_COOKIE_INSECURE', 'sid secure'),
      findingFingerprint('SEC_COOKIE_INSECURE', 'sid httponly'),
    );
    assert.notEqual(fp, findingFingerprint('SEC_CSP_MISSING'));
  });

  it('ignore message, evidence, URLs and severity of a finding', () => {
    const ids = new FindingIdAllocator();
    const a = makeFinding(
      'SEC_HSTS_MISSING',
      { message: 'No HSTS on 3 pages.', evidence: 'x', urls: [`${ORIGIN}/`] },
      ids,
    );
    const b = makeFinding(
      'SEC_HSTS_MISSING',
      { message: 'Reworded: HSTS absent.', evidence: 'y', urls: [`${ORIGIN}/a`, `${ORIGIN}/b`], severity: 'low' },
      ids,
    );
    assert.notEqual(a.id, b.id);
    assert.equal(a.fingerprint, b.fingerprint);
    assert.equal(a.title, catalogEntry('SEC_HSTS_MISSING').title);
    assert.equal(a.fingerprint, findingFingerprint('SEC_HSTS_MISSING'));
  });

  it('are the same whatever order the crawl saw the pages in', () => {
    const reference = runAnalyzers(snapshot(PAGES)).findings;
    assert.ok(reference.length >= 5, `enough findings to compare (${reference.length})`);
    const expected = fingerprints(reference);
    for (const pages of orders(PAGES)) {
      const findings = runAnalyzers(snapshot(pages)).findings;
      assert.deepEqual(fingerprints(findings), expected);
      // Per analyzer too: no fingerprint moves from one analyzer to another.
      for (const f of findings)
        assert.equal(reference.find((r) => r.fingerprint === f.fingerprint)?.analyzer, f.analyzer);
    }
  });

  it('are unique within an audit and the same set in every crawl order, for analyzers with many findings', () => {
    const reference = runAnalyzers(snapshot(MANY)).findings;
    const perCode = new Map<string, number>();
    for (const f of reference) perCode.set(f.analyzer, (perCode.get(f.analyzer) ?? 0) + 1);
    // The pages are built so that these analyzers report several findings each.
    for (const code of MULTI) assert.ok((perCode.get(code) ?? 0) >= 2, `${code}: ${perCode.get(code) ?? 0} findings`);
    const expected = fingerprints(reference);
    assert.equal(expected.length, reference.length, 'no two findings share a fingerprint');
    for (const pages of orders(MANY)) {
      const findings = runAnalyzers(snapshot(pages)).findings;
      assert.equal(new Set(findings.map((f) => f.fingerprint)).size, findings.length);
      assert.deepEqual(fingerprints(findings), expected);
    }
    // Rewording a generic link's surroundings (evidence) keeps its fingerprint; its target is its identity.
    const reworded = MANY.map((p) =>
      p.url.endsWith('/m2')
        ? page('/m2', `${MANY_BODY[1]!.replace('<a href="/x">', '<a class="more" href="/x">')}`)
        : p,
    );
    const generic = (fs: Finding[]) => fingerprints(fs.filter((f) => f.analyzer === 'SEO_LINK_TEXT_GENERIC'));
    assert.deepEqual(generic(runAnalyzers(snapshot(reworded)).findings), generic(reference));
  });

  it('survive a page being fixed, while resources named by the analyzer keep fingerprints of their own', () => {
    const before = runAnalyzers(snapshot(PAGES)).findings;
    const fixed = PAGES.map((p) => (p.url.endsWith('/a') ? page('/a', '<h1>A</h1><img src="/a.png" alt="A">') : p));
    const after = runAnalyzers(snapshot(fixed)).findings;
    const alt = (fs: Finding[]) => fs.filter((f) => f.analyzer === 'A11Y_IMG_ALT_MISSING');
    // Fewer pages affected (the message and URL list change), the same problem of the site.
    assert.notDeepEqual(
      alt(before).flatMap((f) => f.urls),
      alt(after).flatMap((f) => f.urls),
    );
    // Each image is its own subject: the shared logo keeps its fingerprint with one page fewer, /a.png is fixed.
    const logo = findingFingerprint('A11Y_IMG_ALT_MISSING', 'img src=/logo.png');
    const aPng = findingFingerprint('A11Y_IMG_ALT_MISSING', 'img src=/a.png');
    assert.deepEqual(fingerprints(alt(before)), [logo, aPng].sort());
    assert.deepEqual(fingerprints(alt(after)), [logo]);
    assert.deepEqual(
      alt(before)
        .find((f) => f.fingerprint === logo)
        ?.urls.sort(),
      [`${ORIGIN}/`, `${ORIGIN}/a`],
    );
    assert.deepEqual(alt(after).find((f) => f.fingerprint === logo)?.urls, [`${ORIGIN}/`]);

    const disclosure = before.filter((f) => f.analyzer === 'SEC_VERSION_DISCLOSURE');
    assert.deepEqual(
      fingerprints(disclosure),
      [
        findingFingerprint('SEC_VERSION_DISCLOSURE', 'server'),
        findingFingerprint('SEC_VERSION_DISCLOSURE', 'x-powered-by'),
      ].sort(),
    );
    // A version upgrade changes the evidence, not the fingerprint.
    const upgraded = PAGES.map((p) => ({ ...p, headers: { ...HEADERS, server: 'nginx/1.26.3' } }));
    const later = runAnalyzers(snapshot(upgraded)).findings.filter((f) => f.analyzer === 'SEC_VERSION_DISCLOSURE');
    assert.notDeepEqual(later.map((f) => f.evidence).sort(), disclosure.map((f) => f.evidence).sort());
    assert.deepEqual(fingerprints(later), fingerprints(disclosure));

    const cookies = before.filter((f) => f.analyzer === 'SEC_COOKIE_INSECURE');
    assert.ok(cookies.some((f) => f.fingerprint === findingFingerprint('SEC_COOKIE_INSECURE', 'sessionid secure')));
    assert.ok(cookies.some((f) => f.fingerprint === findingFingerprint('SEC_COOKIE_INSECURE', 'sessionid httponly')));
  });

  it('are on every synthetic finding, made by the same function', () => {
    const audit = syntheticAudit(syntheticInput('https://shop.example.com'));
    assert.ok(audit.findings.length > 0);
    for (const f of audit.findings) {
      assert.match(f.fingerprint, FINGERPRINT_PATTERN);
      assert.equal(Object.keys(f)[1], 'fingerprint');
    }
    const again = syntheticAudit(
      syntheticInput('https://shop.example.com', { auditId: 'aud_01JTEST0000000000000000001' }),
    );
    assert.deepEqual(fingerprints(again.findings), fingerprints(audit.findings));
  });
});
