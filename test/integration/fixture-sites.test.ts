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
import { execFileSync } from 'node:child_process';
import diagnosticsChannel from 'node:diagnostics_channel';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { Socket } from 'node:net';
import { crawlSite } from '../../src/crawl/crawler';
import { IMPLEMENTED_ANALYZERS, runAnalyzers, type AnalysisResult } from '../../src/analyzers';
import { collectTlsFacts } from '../../src/analyzers/tls-facts';
import { scoreAudit } from '../../src/analyzers/scoring';
import type { CrawlSnapshot, TlsFacts } from '../../src/analyzers/snapshot';
import { closeOutboundAgents, parseCidrList } from '../../src/outbound';
import { serveFixtureSite, type FixtureServer } from '../support/fixture-server';

const LOOPBACK = parseCidrList('127.0.0.0/8');
const UA = 'DomainAuditBot/0.1 (+https://domain-audit.example/bot)';
const EXPECTED_DIR = path.resolve(__dirname, '../fixtures/expected');
const SITES = ['clean', 'broken-seo', 'broken-sec-perf'] as const;

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
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
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
  `[${f.urls.join(' ')}] ${JSON.stringify(f.evidence)}${f.severity ? ` (${f.severity})` : ''}`;

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
    for (const af of left) lines.push(`  ${a.code}: + unexpected finding ${show({ ...af, severity: af.severity === a.severity ? '' : af.severity })}`);
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

// --- socket audit: every connection must go to loopback ----------------------------------------
const connectedTo: string[] = [];
const onConnected = (msg: unknown) => {
  connectedTo.push((msg as { socket: Socket }).socket.remoteAddress ?? '?');
};

describe('fixture sites (loopback)', function () {
  this.timeout(60_000);

  before(() => diagnosticsChannel.subscribe('undici:client:connected', onConnected));
  after(async () => {
    diagnosticsChannel.unsubscribe('undici:client:connected', onConnected);
    await closeOutboundAgents();
    assert.ok(connectedTo.length > 0);
    for (const a of connectedTo) assert.match(a, /^(?:::ffff:)?127\./, `connection to non-loopback ${a}`);
  });

  it('every expectation file covers exactly the implemented analyzers', () => {
    const codes = IMPLEMENTED_ANALYZERS.map((a) => a.code).sort();
    for (const site of SITES) assert.deepEqual(Object.keys(loadExpected<ExpectedSite>(site).analyzers).sort(), codes, site);
  });

  for (const site of SITES) {
    describe(site, () => {
      const expected = loadExpected<ExpectedSite>(site);
      let server: FixtureServer;
      let snap: CrawlSnapshot;
      let result: AnalysisResult;

      before(async () => {
        server = await serveFixtureSite(site);
        snap = await crawlSite({ origin: server.origin, pageBudget: 50, allow: LOOPBACK, userAgent: UA, lookupDns: false, probeTls: false });
        result = runAnalyzers(snap);
      });
      after(async () => {
        await server?.close();
      });

      it('crawls the expected pages', () => {
        assert.deepEqual(snap.pages.map((p) => relative(server.origin, p.url)), expected.pages);
      });

      it('gives every analyzer its expected status and exactly the expected findings', () => {
        const diff = diffOutcome(expected.analyzers, result.analyzers, actualFindings(result, server.origin));
        assert.ok(diff.length === 0, `${site}: analyzer outcomes differ from test/fixtures/expected/${site}.json:\n${diff.join('\n')}`);
      });

      it('scores and grades as expected', () => {
        const score = scoreAudit(result.analyzers);
        const categories = Object.fromEntries(Object.entries(score.categories).map(([k, v]) => [k, v.score]));
        assert.deepEqual({ score: score.score, grade: score.grade, categories }, { score: expected.score, grade: expected.grade, categories: expected.categories });
      });
    });
  }
});
