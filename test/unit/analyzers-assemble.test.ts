import assert from 'node:assert/strict';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { runAnalyzers } from '../../src/analyzers';
import type { CrawlSnapshot, SnapshotPage } from '../../src/analyzers/snapshot';
import { assembleAuditJson } from '../../src/audits/assemble';
import { auditJsonSchema, type AnalyzerResult } from '../../src/schemas/audit';

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(auditJsonSchema);

const ORIGIN = 'https://shop.example';

function page(path: string, body: string, headers: Record<string, string>, status = 200): SnapshotPage {
  return {
    url: `${ORIGIN}${path}`,
    finalUrl: `${ORIGIN}${path}`,
    status,
    headers,
    body,
    ttfbMs: 212.6,
    bytes: body.length,
    depth: path === '/' ? 0 : 1,
    redirectChain: [],
  };
}

const SNAPSHOT: CrawlSnapshot = {
  origin: ORIGIN,
  robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 200, body: 'User-agent: *\nAllow: /\n' },
  pages: [
    page(
      '/',
      '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1><img src="/a.png"></body></html>',
      {
        'content-type': 'text/html; charset=utf-8',
        server: 'Apache/2.4.41 (Ubuntu)',
        'x-content-type-options': 'nosniff',
      },
    ),
    page('/missing', 'not found', { 'content-type': 'text/html' }, 404),
  ],
};

function assemble(analyzers: AnalyzerResult[], findings = runAnalyzers(SNAPSHOT).findings) {
  return assembleAuditJson({
    auditId: 'aud_01JABCDEF',
    domain: ORIGIN,
    mode: 'live',
    tier: 'free',
    createdAt: '2026-11-21T10:15:00.000Z',
    startedAt: '2026-11-21T10:15:01.000Z',
    completedAt: '2026-11-21T10:15:09.500Z',
    pageBudget: 10,
    crawlDurationMs: 8123.4,
    pages: [...runAnalyzers(SNAPSHOT).pages],
    analyzers,
    findings,
  });
}

describe('assembleAuditJson', () => {
  it('turns analyzer output into a valid audit JSON with keys in a stable order', () => {
    const { analyzers } = runAnalyzers(SNAPSHOT);
    const audit = assemble(analyzers);
    assert.ok(validate(audit), ajv.errorsText(validate.errors));
    assert.deepEqual(Object.keys(audit), [
      'audit_id',
      'version',
      'scoring_version',
      'domain',
      'status',
      'mode',
      'tier',
      'score',
      'grade',
      'categories',
      'findings',
      'analyzers',
      'crawl',
      'created_at',
      'started_at',
      'completed_at',
    ]);
    assert.deepEqual(Object.keys(audit.findings[0]!), [
      'id',
      'fingerprint',
      'analyzer',
      'category',
      'severity',
      'title',
      'message',
      'recommendation',
      'urls',
      'count',
      'evidence',
    ]);
    assert.deepEqual(Object.keys(audit.analyzers[0]!), [
      'code',
      'category',
      'title',
      'severity',
      'status',
      'score',
      'weight',
    ]);
    assert.deepEqual(audit.crawl, {
      pages_crawled: 2,
      page_budget: 10,
      duration_ms: 8123,
      pages: [
        {
          url: `${ORIGIN}/`,
          status_code: 200,
          depth: 0,
          ttfb_ms: 213,
          bytes: SNAPSHOT.pages[0]!.bytes,
          content_type: 'text/html; charset=utf-8',
          title: 'Shop',
        },
        {
          url: `${ORIGIN}/missing`,
          status_code: 404,
          depth: 1,
          ttfb_ms: 213,
          bytes: 9,
          content_type: 'text/html',
          title: null,
        },
      ],
    });
    // Categories in schema order; findings most severe first.
    assert.deepEqual(Object.keys(audit.categories), [
      'security',
      'seo',
      'performance',
      'accessibility',
      'best_practices',
    ]);
    const ranks = audit.findings.map((f) => ['critical', 'high', 'medium', 'low', 'info'].indexOf(f.severity));
    assert.deepEqual(
      ranks,
      [...ranks].sort((a, b) => a - b),
    );
    const version = audit.findings.find((f) => f.analyzer === 'SEC_VERSION_DISCLOSURE')!;
    assert.equal(version.evidence, 'Server: Apache/2.4.41 (Ubuntu)');
    const status = audit.findings.find((f) => f.analyzer === 'SEO_HTTP_STATUS_ERROR')!;
    assert.deepEqual(status.urls, [`${ORIGIN}/missing`]);
    // Same input, same bytes.
    assert.equal(JSON.stringify(assemble(runAnalyzers(SNAPSHOT).analyzers)), JSON.stringify(audit));
  });

  it('sorts analyzers into catalog order and recomputes weights from severity and status', () => {
    const { analyzers } = runAnalyzers(SNAPSHOT);
    const shuffled = [...analyzers].reverse().map((a) => ({ ...a, weight: 99 }));
    const audit = assemble(shuffled, []);
    assert.deepEqual(
      audit.analyzers.map((a) => a.code),
      analyzers.map((a) => a.code),
    );
    assert.deepEqual(
      audit.analyzers.map((a) => a.weight),
      analyzers.map((a) => a.weight),
    );
  });

  it('leaves out categories with nothing applicable', () => {
    const audit = assemble(
      [
        {
          code: 'SEC_XCTO_MISSING',
          category: 'security',
          title: 'x',
          severity: 'low',
          status: 'pass',
          score: 1,
          weight: 1,
        },
      ],
      [],
    );
    assert.deepEqual(audit.categories, { security: { score: 100, weight: 25 } });
    assert.equal(audit.score, 100);
    assert.equal(audit.grade, 'A+');
    assert.ok(validate(audit), ajv.errorsText(validate.errors));
  });
});
