import assert from 'node:assert/strict';
import { ANALYZERS, runAnalyzers } from '../../src/analyzers';
import { parsePages } from '../../src/analyzers/parse';
import type { CrawlSnapshot, DnsFacts, SnapshotPage } from '../../src/analyzers/snapshot';
import type { Analyzer, AnalyzerOutcome } from '../../src/analyzers/types';
import {
  analyzeSpf,
  caaMissing,
  dmarcMissing,
  dmarcWeak,
  dnssecMissing,
  ipv6Missing,
  noMailHygiene,
  spfMissing,
  spfWeak,
} from '../../src/analyzers/dns-email';
import { collectDnsFacts, type DnsResolver } from '../../src/crawl/dns-facts';

const ORIGIN = 'https://www.example.com';

const HOME: SnapshotPage = {
  url: `${ORIGIN}/`,
  finalUrl: `${ORIGIN}/`,
  status: 200,
  headers: { 'content-type': 'text/html' },
  body: '<html></html>',
  ttfbMs: 100,
  bytes: 100,
  depth: 0,
  redirectChain: [],
};

const GOOD: DnsFacts = {
  host: 'www.example.com',
  domain: 'example.com',
  a: ['192.0.2.10'],
  aaaa: ['2001:db8::10'],
  caa: ['0 issue "letsencrypt.org"'],
  caaName: 'example.com',
  dnssec: true,
  mx: [{ exchange: 'mx.example.com', priority: 10 }],
  spf: ['v=spf1 include:_spf.google.com -all'],
  dmarc: ['v=DMARC1; p=reject; rua=mailto:d@example.com'],
};

function run(a: Analyzer, over: Partial<DnsFacts> | null | 'failed'): AnalyzerOutcome {
  const s: CrawlSnapshot = {
    origin: ORIGIN,
    robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
    pages: [HOME],
    ...(over === null
      ? {}
      : over === 'failed'
        ? { dns: { ok: false, error: 'SERVFAIL' } }
        : { dns: { ok: true, facts: { ...GOOD, ...over } } }),
  };
  return a.run(s, parsePages(s.pages));
}

const ALL = [dnssecMissing, caaMissing, ipv6Missing, spfMissing, spfWeak, dmarcMissing, dmarcWeak, noMailHygiene];

describe('DNS/email analyzers: provider states', () => {
  it('are not_applicable without DNS facts and error when the provider failed', () => {
    for (const a of ALL) {
      assert.equal(run(a, null).status, 'not_applicable', a.code);
      assert.equal(run(a, 'failed').status, 'error', a.code);
    }
  });
  it('pass (or do not apply) on a well-configured mail domain', () => {
    for (const a of ALL) assert.ok(['pass', 'not_applicable'].includes(run(a, {}).status), a.code);
    assert.equal(run(noMailHygiene, {}).status, 'not_applicable');
  });
});

describe('DNS_DNSSEC_MISSING', () => {
  it('fails unsigned, not_applicable when unknown', () => {
    const r = run(dnssecMissing, { dnssec: false });
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.evidence, /^example\.com: DNSSEC not validated/);
    assert.deepEqual(r.findings[0]!.urls, [ORIGIN]);
    assert.equal(run(dnssecMissing, { dnssec: null }).status, 'not_applicable');
  });
});

describe('DNS_CAA_MISSING', () => {
  it('fails without CAA, warns with only iodef', () => {
    const r = run(caaMissing, { caa: [] });
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.evidence, /www\.example\.com CAA: \(none up to example\.com\)/);
    const w = run(caaMissing, { caa: ['0 iodef "mailto:sec@example.com"'] });
    assert.equal(w.status, 'warn');
    assert.match(w.findings[0]!.evidence, /iodef/);
    assert.equal(run(caaMissing, { caa: ['128 issuewild ";"'] }).status, 'pass');
  });
});

describe('DNS_IPV6_MISSING', () => {
  it('fails without AAAA, listing the A records', () => {
    const r = run(ipv6Missing, { aaaa: [] });
    assert.equal(r.status, 'fail');
    assert.equal(r.findings[0]!.evidence, 'www.example.com AAAA: (none); A: 192.0.2.10');
  });
});

describe('EMAIL_SPF_MISSING', () => {
  it('fails with no record or several', () => {
    const none = run(spfMissing, { spf: [] });
    assert.equal(none.status, 'fail');
    assert.match(none.findings[0]!.evidence, /example\.com TXT v=spf1: \(none\)/);
    const two = run(spfMissing, { spf: ['v=spf1 -all', 'v=spf1 mx ~all'] });
    assert.equal(two.status, 'fail');
    assert.match(two.findings[0]!.message, /2 SPF records/);
    assert.match(two.findings[0]!.evidence, /"v=spf1 -all", "v=spf1 mx ~all"/);
  });
  it('ignores TXT records that are not SPF', () => {
    assert.equal(run(spfMissing, { spf: ['google-site-verification=abc', 'v=spf10 -all'] }).status, 'fail');
    assert.equal(run(spfMissing, { spf: ['google-site-verification=abc', 'V=SPF1 ~all'] }).status, 'pass');
  });
});

describe('EMAIL_SPF_WEAK', () => {
  it('passes -all and ~all and a redirect without all', () => {
    for (const spf of ['v=spf1 mx -all', 'v=spf1 include:a.example ~all', 'v=spf1 redirect=_spf.example.com']) {
      assert.equal(run(spfWeak, { spf: [spf] }).status, 'pass', spf);
    }
  });
  it('fails +all, bare all, ?all and no all, quoting the record', () => {
    for (const spf of ['v=spf1 +all', 'v=spf1 a mx all', 'v=spf1 ?all', 'v=spf1 mx']) {
      const r = run(spfWeak, { spf: [spf] });
      assert.equal(r.status, 'fail', spf);
      assert.equal(r.findings[0]!.evidence, `example.com TXT "${spf}"`);
    }
  });
  it('fails more than 10 DNS-querying terms', () => {
    const terms = Array.from({ length: 9 }, (_, i) => `include:s${i}.example`).join(' ');
    const spf = `v=spf1 ${terms} a mx ~all`;
    assert.equal(analyzeSpf(spf).lookups, 11);
    const r = run(spfWeak, { spf: [spf] });
    assert.equal(r.status, 'fail');
    assert.match(r.findings[0]!.message, /11 DNS lookups/);
    assert.equal(
      analyzeSpf('v=spf1 ip4:192.0.2.0/24 a:x.example mx/24 ptr exists:%{i}.x redirect=y.example').lookups,
      5,
    );
  });
  it('is not_applicable without exactly one SPF record', () => {
    assert.equal(run(spfWeak, { spf: [] }).status, 'not_applicable');
  });
});

describe('EMAIL_DMARC_MISSING / EMAIL_DMARC_WEAK', () => {
  it('DMARC_MISSING fails with none, a non-DMARC record, or several', () => {
    const r = run(dmarcMissing, { dmarc: [] });
    assert.equal(r.status, 'fail');
    assert.equal(r.findings[0]!.evidence, '_dmarc.example.com TXT: (none)');
    assert.equal(run(dmarcMissing, { dmarc: ['v=spf1 -all'] }).status, 'fail');
    assert.equal(run(dmarcMissing, { dmarc: ['v=DMARC1; p=none', 'v=DMARC1; p=reject'] }).status, 'fail');
  });
  it('DMARC_WEAK fails p=none or no policy, warns on pct<100 or sp=none, passes quarantine', () => {
    const none = run(dmarcWeak, { dmarc: ['v=DMARC1; p=none; rua=mailto:d@example.com'] });
    assert.equal(none.status, 'fail');
    assert.equal(none.findings[0]!.evidence, '_dmarc.example.com TXT "v=DMARC1; p=none; rua=mailto:d@example.com"');
    assert.equal(run(dmarcWeak, { dmarc: ['v=DMARC1; rua=mailto:d@example.com'] }).status, 'fail');
    assert.equal(run(dmarcWeak, { dmarc: ['v=DMARC1; p=quarantine; pct=20'] }).status, 'warn');
    assert.equal(run(dmarcWeak, { dmarc: ['v=DMARC1; p=reject; sp=none'] }).status, 'warn');
    assert.equal(run(dmarcWeak, { dmarc: ['v=DMARC1;p=Quarantine'] }).status, 'pass');
    assert.equal(run(dmarcWeak, { dmarc: [] }).status, 'not_applicable');
  });
});

describe('EMAIL_NO_MAIL_HYGIENE', () => {
  it('passes a null MX or v=spf1 -all on a domain without MX', () => {
    assert.equal(run(noMailHygiene, { mx: [{ exchange: '', priority: 0 }] }).status, 'pass');
    assert.equal(run(noMailHygiene, { mx: [{ exchange: '.', priority: 0 }], spf: [] }).status, 'pass');
    assert.equal(run(noMailHygiene, { mx: [], spf: ['v=spf1 -all'] }).status, 'pass');
  });
  it('fails a domain with no MX and no declaration', () => {
    const r = run(noMailHygiene, { mx: [], spf: ['v=spf1 a ~all'] });
    assert.equal(r.status, 'fail');
    assert.equal(r.findings[0]!.evidence, 'example.com MX: (none); SPF: "v=spf1 a ~all"');
    assert.equal(run(noMailHygiene, { mx: [], spf: [] }).status, 'fail');
  });
});

// ── collectDnsFacts with an injected resolver (never real DNS) ──────────────────────────────────

function dnsError(code: string): Error {
  return Object.assign(new Error(`query ${code}`), { code });
}

function fakeResolver(zone: Record<string, Record<string, unknown>>, calls: string[] = []): DnsResolver {
  const answer = (type: string) => async (name: string) => {
    calls.push(`${type} ${name}`);
    const rec = zone[name];
    if (!rec) throw dnsError('ENOTFOUND');
    const v = rec[type];
    if (v instanceof Error) throw v;
    if (v === undefined) throw dnsError('ENODATA');
    return v as never;
  };
  return {
    resolve4: answer('A'),
    resolve6: answer('AAAA'),
    resolveCaa: answer('CAA'),
    resolveMx: answer('MX'),
    resolveTxt: answer('TXT'),
  };
}

describe('collectDnsFacts', () => {
  it('collects A/AAAA of the host, CAA up the tree, MX, SPF and DMARC of the domain', async () => {
    const calls: string[] = [];
    const facts = await collectDnsFacts(
      'a.b.example.com',
      'example.com',
      fakeResolver(
        {
          'a.b.example.com': { A: ['192.0.2.1'] },
          'b.example.com': { A: ['192.0.2.2'] },
          'example.com': {
            CAA: [
              { critical: 0, issue: 'letsencrypt.org' },
              { critical: 128, iodef: 'mailto:s@example.com' },
            ],
            MX: [
              { exchange: 'mx2.example.com', priority: 20 },
              { exchange: 'mx1.example.com', priority: 10 },
            ],
            TXT: [['v=spf1 include:_spf.', 'example.net -all'], ['google-site-verification=x']],
          },
          '_dmarc.example.com': { TXT: [['v=DMARC1; p=none']] },
        },
        calls,
      ),
    );
    assert.deepEqual(facts, {
      host: 'a.b.example.com',
      domain: 'example.com',
      a: ['192.0.2.1'],
      aaaa: [],
      caa: ['0 issue "letsencrypt.org"', '128 iodef "mailto:s@example.com"'],
      caaName: 'example.com',
      dnssec: null,
      mx: [
        { exchange: 'mx1.example.com', priority: 10 },
        { exchange: 'mx2.example.com', priority: 20 },
      ],
      spf: ['v=spf1 include:_spf.example.net -all'],
      dmarc: ['v=DMARC1; p=none'],
    });
    assert.ok(calls.includes('CAA b.example.com'));
    assert.ok(!calls.some((c) => c === 'CAA com'), 'does not climb above the registrable domain');
  });
  it('stops the CAA walk at the first name with CAA records', async () => {
    const facts = await collectDnsFacts(
      'www.example.com',
      'example.com',
      fakeResolver({
        'www.example.com': { AAAA: ['2001:db8::1'], CAA: [{ critical: 0, issuewild: ';' }] },
        'example.com': { CAA: [{ critical: 0, issue: 'other-ca.example' }] },
      }),
    );
    assert.deepEqual(facts.caa, ['0 issuewild ";"']);
    assert.equal(facts.caaName, 'www.example.com');
    assert.deepEqual(facts.aaaa, ['2001:db8::1']);
    assert.deepEqual(facts.mx, []);
    assert.deepEqual(facts.dmarc, []);
  });
  it('throws on errors other than NXDOMAIN / NODATA', async () => {
    await assert.rejects(
      collectDnsFacts('example.com', 'example.com', fakeResolver({ 'example.com': { MX: dnsError('ESERVFAIL') } })),
      (e: Error & { code?: string }) => e.code === 'ESERVFAIL',
    );
    await assert.rejects(
      collectDnsFacts('example.com', 'example.com', fakeResolver({ 'example.com': { TXT: dnsError('ETIMEOUT') } })),
    );
  });
});

describe('registry', () => {
  it('registers the security transport/content and DNS/email analyzers, run through runAnalyzers', () => {
    const codes = ANALYZERS.map((a) => a.code);
    for (const code of [
      'SEC_HTTP_NOT_REDIRECTED',
      'SEC_TLS_CERT_INVALID',
      'SEC_TLS_CERT_EXPIRING',
      'SEC_TLS_LEGACY_PROTOCOL',
      'SEC_TLS_WEAK_KEY',
      'SEC_CSP_UNSAFE',
      'SEC_COOKIE_INSECURE',
      'SEC_CORS_CREDENTIALED_ANY',
      'SEC_SRI_MISSING',
      'SEC_MIXED_CONTENT',
      'SEC_SECURITY_TXT_MISSING',
      'DNS_DNSSEC_MISSING',
      'DNS_CAA_MISSING',
      'DNS_IPV6_MISSING',
      'EMAIL_SPF_MISSING',
      'EMAIL_SPF_WEAK',
      'EMAIL_DMARC_MISSING',
      'EMAIL_DMARC_WEAK',
      'EMAIL_NO_MAIL_HYGIENE',
    ])
      assert.ok(codes.includes(code as never), code);
    const s: CrawlSnapshot = {
      origin: ORIGIN,
      robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
      pages: [HOME],
      dns: { ok: true, facts: { ...GOOD, spf: ['v=spf1 +all'], dmarc: ['v=DMARC1; p=none'] } },
    };
    const r = runAnalyzers(s);
    const status = (code: string) => r.analyzers.find((a) => a.code === code)!;
    assert.deepEqual(status('EMAIL_SPF_WEAK'), {
      code: 'EMAIL_SPF_WEAK',
      category: 'dns_email',
      title: 'SPF policy too permissive',
      severity: 'medium',
      status: 'fail',
      score: 0,
      weight: 3,
    });
    assert.equal(status('EMAIL_DMARC_WEAK').status, 'fail');
    assert.equal(status('EMAIL_SPF_MISSING').status, 'pass');
    assert.equal(status('SEC_TLS_CERT_INVALID').status, 'not_applicable');
    const spf = r.findings.find((f) => f.analyzer === 'EMAIL_SPF_WEAK')!;
    assert.equal(spf.evidence, 'example.com TXT "v=spf1 +all"');
    assert.deepEqual(spf.urls, [ORIGIN]);
  });
});
