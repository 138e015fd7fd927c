/**
 * Fixture websites (test/fixtures/sites) served on 127.0.0.1, crawled and analysed end to end. Each
 * site's expected outcome is written down in test/fixtures/expected/<site>.json: every implemented
 * analyzer's status, the exact set of its findings (URLs as paths, a substring of the evidence) and
 * the overall score, category scores and grade. HTTPS fixtures (self-signed, expired, wrong-host and
 * soon-expiring certificates made with the openssl CLI at test time) check the TLS analyzers
 * (expected/tls.json).
 *
 * Loopback only: every undici socket is recorded and checked; hosts are IP literals (TLS uses a name
 * only as SNI, with the connection going to 127.0.0.1); lookupDns and probeTls are off for crawls.
 */
import assert from 'node:assert/strict';
import { useLoopbackGuard } from '../support/loopback-guard';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { crawlSite } from '../../src/crawl/crawler';
import { ANALYZERS, runAnalyzers, type AnalysisResult } from '../../src/analyzers';
import { collectTlsFacts } from '../../src/crawl/tls-facts';
import { scoreAudit } from '../../src/analyzers/scoring';
import type { CrawlSnapshot, TlsFacts } from '../../src/analyzers/snapshot';
import { parseCidrList } from '../../src/outbound/policy';
import { serveFixtureSite, type FixtureServer } from '../support/fixture-server';

const LOOPBACK = parseCidrList('127.0.0.0/8');
const UA = 'DomainAuditBot/0.1 (+https://domain-audit.example/bot)';
const EXPECTED_DIR = path.resolve(__dirname, '../fixtures/expected');
/** Each crawl: a site, how it is served, and its expectation file. */
interface Case {
  site: string;
  expected: string;
  /** Serve over https (certificate of the test CA; the crawler accepts any certificate). */
  https?: boolean;
  /** What http://127.0.0.1/ answers during an https crawl (default plain). */
  port80?: 'redirect' | 'plain';
}
const CASES: readonly Case[] = [
  { site: 'clean', expected: 'clean' },
  { site: 'broken-seo', expected: 'broken-seo' },
  { site: 'broken-sec-perf', expected: 'broken-sec-perf' },
  { site: 'accuracy', expected: 'accuracy' },
  { site: 'aria', expected: 'aria' },
  { site: 'clean', expected: 'clean-https', https: true, port80: 'redirect' },
  { site: 'broken-https', expected: 'broken-https', https: true, port80: 'plain' },
];

type Status = 'pass' | 'warn' | 'fail' | 'not_applicable' | 'error';

/** One expected finding: its URLs (paths of the fixture origin; `*` matches anything) and a substring of its evidence. */
interface ExpectedFinding {
  urls: string[];
  evidence: string;
  /** Expected severity when it differs from the catalog's (optional). */
  severity?: string;
}

interface ExpectedAnalyzer {
  status: Status;
  findings?: ExpectedFinding[];
  /** Why, in words (not asserted). */
  note?: string;
}

interface ExpectedSite {
  site: string;
  description: string;
  /** Crawled pages, as paths, in crawl order. */
  pages: string[];
  score: number;
  grade: string;
  categories: Record<string, number>;
  analyzers: Record<string, ExpectedAnalyzer>;
}

interface ActualFinding {
  analyzer: string;
  urls: string[];
  evidence: string;
  severity: string;
}

function loadExpected<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(EXPECTED_DIR, `${name}.json`), 'utf8')) as T;
}

function globMatch(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(value);
}

function urlsMatch(expected: readonly string[], actual: readonly string[]): boolean {
  if (expected.length !== actual.length) return false;
  const left = [...actual];
  for (const e of expected) {
    const i = left.findIndex((a) => globMatch(e, a));
    if (i === -1) return false;
    left.splice(i, 1);
  }
  return true;
}

function findingMatches(e: ExpectedFinding, a: ActualFinding, catalogSeverity: string): boolean {
  return urlsMatch(e.urls, a.urls) && a.evidence.includes(e.evidence) && (e.severity ?? catalogSeverity) === a.severity;
}

const show = (f: { urls: readonly string[]; evidence: string; severity?: string }) =>
  `urls ${JSON.stringify(f.urls)} evidence ${JSON.stringify(f.evidence)}${f.severity ? ` (${f.severity})` : ''}`;

/**
 * Compares every analyzer's status and findings with the expectation; returns readable diff lines
 * (empty when everything matches). Findings are matched one to one, so the sets must be equal.
 */
function diffOutcome(
  expected: Record<string, ExpectedAnalyzer>,
  actual: { code: string; status: string; severity: string }[],
  findings: ActualFinding[],
): string[] {
  const lines: string[] = [];
  const actualCodes = new Set(actual.map((a) => a.code));
  for (const code of Object.keys(expected)) if (!actualCodes.has(code)) lines.push(`  ${code}: expected but not run`);
  for (const a of actual) {
    const e = expected[a.code];
    if (!e) {
      lines.push(`  ${a.code}: not in the expectation (got ${a.status})`);
      continue;
    }
    if (e.status !== a.status) lines.push(`  ${a.code}: status expected ${e.status}, got ${a.status}`);
    const left = findings.filter((f) => f.analyzer === a.code);
    for (const ef of e.findings ?? []) {
      const i = left.findIndex((af) => findingMatches(ef, af, a.severity));
      if (i === -1) lines.push(`  ${a.code}: - missing finding ${show(ef)}`);
      else left.splice(i, 1);
    }
    for (const af of left)
      lines.push(
        `  ${a.code}: + unexpected finding ${show({ ...af, severity: af.severity === a.severity ? '' : af.severity })}`,
      );
  }
  return lines;
}

function relative(origin: string, s: string): string {
  return s.split(origin).join('');
}

function actualFindings(result: AnalysisResult, origin: string): ActualFinding[] {
  return result.findings.map((f) => ({
    analyzer: f.analyzer,
    urls: f.urls.map((u) => relative(origin, u)),
    evidence: relative(origin, f.evidence),
    severity: f.severity,
  }));
}

describe('fixture sites (loopback)', function () {
  this.timeout(60_000);

  useLoopbackGuard();

  it('every expectation file covers exactly the implemented analyzers', () => {
    const codes = ANALYZERS.map((a) => a.code).sort();
    for (const c of CASES)
      assert.deepEqual(Object.keys(loadExpected<ExpectedSite>(c.expected).analyzers).sort(), codes, c.expected);
  });

  for (const c of CASES) {
    describe(
      c.https ? `${c.site} over https (expected/${c.expected}.json)` : `${c.site} (expected/${c.expected}.json)`,
      function () {
        const expected = loadExpected<ExpectedSite>(c.expected);
        let server: FixtureServer | undefined;
        let port80: Port80 | undefined;
        let snap: CrawlSnapshot;
        let result: AnalysisResult;

        before(async function () {
          if (c.https) {
            // The crawler's http→https probe of an https origin always asks http://<host>/ on port 80.
            port80 = await listenPort80();
            if (!port80) {
              console.warn(
                `      (skipped: cannot listen on 127.0.0.1:80 here, needed for SEC_HTTP_NOT_REDIRECTED of ${c.site} over https)`,
              );
              this.skip();
            }
          }
          server = await serveFixtureSite(c.site, c.https ? { tls: testCertificates().certs.valid! } : {});
          if (port80) port80.handler = port80Handler(c.port80 ?? 'plain', server.origin);
          snap = await crawlSite({
            origin: server.origin,
            pageBudget: 50,
            allow: LOOPBACK,
            userAgent: UA,
            lookupDns: false,
            probeTls: false,
          });
          result = runAnalyzers(snap);
        });
        after(async () => {
          await server?.close();
          await port80?.close();
        });

        it('crawls the expected pages', () => {
          assert.deepEqual(
            snap.pages.map((p) => relative(server!.origin, p.url)),
            expected.pages,
          );
        });

        it('gives every analyzer its expected status and exactly the expected findings', () => {
          const diff = diffOutcome(expected.analyzers, result.analyzers, actualFindings(result, server!.origin));
          assert.ok(
            diff.length === 0,
            `${c.expected}: analyzer outcomes differ from test/fixtures/expected/${c.expected}.json:\n${diff.join('\n')}`,
          );
        });

        it('gives every finding a fingerprint of its own (docs/decisions.md, Fingerprints)', () => {
          const seen = new Map<string, string>();
          const clashes: string[] = [];
          for (const f of result.findings) {
            const prior = seen.get(f.fingerprint);
            if (prior !== undefined)
              clashes.push(`${f.analyzer}: "${prior}" and "${relative(server!.origin, f.evidence)}"`);
            else seen.set(f.fingerprint, relative(server!.origin, f.evidence));
          }
          assert.deepEqual(clashes, [], `${c.expected}: findings sharing a fingerprint`);
        });

        it('scores and grades as expected', () => {
          const score = scoreAudit(result.analyzers);
          const categories = Object.fromEntries(Object.entries(score.categories).map(([k, v]) => [k, v.score]));
          assert.deepEqual(
            { score: score.score, grade: score.grade, categories },
            { score: expected.score, grade: expected.grade, categories: expected.categories },
          );
        });
      },
    );
  }
});

// ── http://127.0.0.1/ (port 80) for the https crawls ─────────────────────────────────────────────

interface Port80 {
  handler: http.RequestListener;
  close(): Promise<void>;
}

/** What http://127.0.0.1/ does: redirect to the https origin, or answer 200 over plain http. */
function port80Handler(kind: 'redirect' | 'plain', httpsOrigin: string): http.RequestListener {
  return (req, res) => {
    if (kind === 'redirect') res.writeHead(301, { location: `${httpsOrigin}${req.url ?? '/'}` }).end();
    else
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>plain http</title><h1>plain http</h1>');
  };
}

/** Listens on 127.0.0.1:80 (needs the privilege and a free port); undefined when it cannot. */
async function listenPort80(): Promise<Port80 | undefined> {
  const p: Port80 = {
    handler: (_req, res) => void res.writeHead(503).end(),
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => p.handler(req, res));
  server.keepAliveTimeout = 1_000;
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(80, '127.0.0.1', () => resolve(true));
  });
  if (!ok) return undefined;
  p.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return p;
}

// ── TLS certificate fixtures ─────────────────────────────────────────────────────────────────────

/** Host name the certificates are made for; used only as SNI and for the identity check, never resolved. */
const TLS_HOST = 'fixture.test';
const TLS_ANALYZERS = [
  'SEC_HTTPS_UNAVAILABLE',
  'SEC_TLS_CERT_INVALID',
  'SEC_TLS_CERT_EXPIRING',
  'SEC_TLS_LEGACY_PROTOCOL',
  'SEC_TLS_WEAK_KEY',
];

interface ExpectedTls {
  description: string;
  host: string;
  certificates: Record<
    string,
    {
      description: string;
      /** Certificate made by makeCertificates (default: the key of this entry). */
      certificate?: string;
      /** The server also accepts TLS 1.0 and 1.1. */
      legacyTls?: boolean;
      trusted: boolean;
      hostnameMatches: boolean;
      analyzers: Record<string, ExpectedAnalyzer>;
    }
  >;
}

const DAY = 86_400_000;

/** openssl ca -startdate/-enddate format: YYYYMMDDHHMMSSZ (UTC). */
function asn1Time(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

function openssl(cwd: string, args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * A test CA and leaf certificates in `dir`: `valid` (the CA, SAN fixture.test, a year), `self-signed`,
 * `expired` (ended yesterday; `openssl req -x509 -days` cannot backdate, so `openssl ca -startdate/-enddate`),
 * `wrong-host` (SAN other.test), `expiring-5d`, `expiring-20d`, and `weak-key` (RSA 1024). EC P-256 keys
 * otherwise (fast, and not weak).
 */
function makeCertificates(dir: string): Record<string, { key: string; cert: string }> {
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '3650',
    '-subj',
    '/CN=Fixture Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  fs.mkdirSync(path.join(dir, 'newcerts'));
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(path.join(dir, 'serial'), '1000\n');
  fs.writeFileSync(
    path.join(dir, 'ca.cnf'),
    [
      '[ ca ]',
      'default_ca = fixture_ca',
      '[ fixture_ca ]',
      `dir = ${dir}`,
      'database = $dir/index.txt',
      'new_certs_dir = $dir/newcerts',
      'certificate = $dir/ca.crt',
      'private_key = $dir/ca.key',
      'serial = $dir/serial',
      'default_md = sha256',
      'policy = any_policy',
      'unique_subject = no',
      'copy_extensions = none',
      '[ any_policy ]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  const now = Date.now();
  const leaf = (name: string, san: string, from: number, to: number, key: string[] = ecKey) => {
    openssl(dir, ['req', ...key, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${san}`]);
    fs.writeFileSync(
      path.join(dir, `${name}.ext`),
      `subjectAltName = DNS:${san}\nbasicConstraints = CA:FALSE\nextendedKeyUsage = serverAuth\n`,
    );
    openssl(dir, [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-notext',
      '-in',
      `${name}.csr`,
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
      '-startdate',
      asn1Time(from),
      '-enddate',
      asn1Time(to),
    ]);
  };
  leaf('valid', TLS_HOST, now - DAY, now + 365 * DAY);
  leaf('expired', TLS_HOST, now - 30 * DAY, now - DAY);
  leaf('wrong-host', 'other.test', now - DAY, now + 365 * DAY);
  leaf('expiring-5d', TLS_HOST, now - DAY, now + 5 * DAY + 3_600_000);
  leaf('expiring-20d', TLS_HOST, now - DAY, now + 20 * DAY + 3_600_000);
  leaf('weak-key', TLS_HOST, now - DAY, now + 365 * DAY, ['-newkey', 'rsa:1024', '-nodes']);
  openssl(dir, [
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    'self-signed.key',
    '-out',
    'self-signed.crt',
    '-days',
    '365',
    '-subj',
    `/CN=${TLS_HOST}`,
    '-addext',
    `subjectAltName=DNS:${TLS_HOST}`,
  ]);
  const out: Record<string, { key: string; cert: string }> = {};
  for (const name of ['valid', 'self-signed', 'expired', 'wrong-host', 'expiring-5d', 'expiring-20d', 'weak-key']) {
    out[name] = {
      key: fs.readFileSync(path.join(dir, `${name}.key`), 'utf8'),
      cert: fs.readFileSync(path.join(dir, `${name}.crt`), 'utf8'),
    };
  }
  return out;
}

/** GET / over https from 127.0.0.1 with SNI fixture.test, trusting the test CA. */
function httpsGet(port: number, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        servername: TLS_HOST,
        ca,
        headers: { host: `${TLS_HOST}:${port}` },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
  });
}

let generated: { dir: string; certs: Record<string, { key: string; cert: string }>; ca: string } | undefined;

/** The certificates, made once per run in a temp dir (removed when the process exits). */
function testCertificates(): NonNullable<typeof generated> {
  if (!generated) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fixture-tls-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const certs = makeCertificates(dir);
    generated = { dir, certs, ca: fs.readFileSync(path.join(dir, 'ca.crt'), 'utf8') };
  }
  return generated;
}

describe('TLS certificate fixtures (the clean site over https on 127.0.0.1)', function () {
  this.timeout(60_000);
  const expected = loadExpected<ExpectedTls>('tls');
  let certs: Record<string, { key: string; cert: string }>;
  let ca: string;

  before(() => {
    ({ certs, ca } = testCertificates());
  });

  it('expects every certificate that is made', () => {
    const used = new Set(Object.entries(expected.certificates).map(([name, e]) => e.certificate ?? name));
    assert.deepEqual([...used].sort(), Object.keys(certs).sort());
  });

  it('serves the clean site over https with the valid certificate', async () => {
    const server = await serveFixtureSite('clean', { tls: certs.valid! });
    try {
      const res = await httpsGet(server.port, ca);
      assert.equal(res.status, 200);
      assert.match(res.body, /<title>Fixture Gardens: plants for small balconies<\/title>/);
    } finally {
      await server.close();
    }
  });

  for (const [name, exp] of Object.entries(expected.certificates)) {
    it(`${name}: ${exp.description}`, async () => {
      const cert = certs[exp.certificate ?? name]!;
      const server = await serveFixtureSite('clean', {
        // Security level 1 lets the server load the 1024-bit weak-key certificate (Node 24 defaults to 2).
        tls: exp.legacyTls
          ? { ...cert, minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' }
          : { ...cert, ciphers: 'DEFAULT:@SECLEVEL=1' },
      });
      let facts: TlsFacts;
      try {
        facts = await collectTlsFacts(TLS_HOST, server.port, {
          connectTimeoutMs: 5_000,
          lookupAddress: '127.0.0.1',
          ca,
        });
      } finally {
        await server.close();
      }
      assert.equal(facts.httpsAvailable, true);
      assert.equal(facts.certificate?.trusted, exp.trusted, `trusted (${facts.certificate?.error ?? 'no error'})`);
      assert.equal(facts.certificate?.hostnameMatches, exp.hostnameMatches, 'hostnameMatches');
      const origin = `https://${TLS_HOST}:${server.port}`;
      const snapshot: CrawlSnapshot = {
        origin,
        robots: { kind: 'fetched', url: `${origin}/robots.txt`, status: 404, body: '' },
        pages: [],
        tls: { ok: true, facts },
        observedAt: new Date().toISOString(),
      };
      const analyzers = ANALYZERS.filter((a) => TLS_ANALYZERS.includes(a.code));
      assert.equal(analyzers.length, TLS_ANALYZERS.length);
      const result = runAnalyzers(snapshot, { analyzers });
      const diff = diffOutcome(exp.analyzers, result.analyzers, actualFindings(result, origin));
      assert.ok(
        diff.length === 0,
        `tls ${name}: analyzer outcomes differ from test/fixtures/expected/tls.json:\n${diff.join('\n')}`,
      );
    });
  }
});
