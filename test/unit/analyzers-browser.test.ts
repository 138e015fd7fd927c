import assert from 'node:assert/strict';
import Ajv from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { BROWSER_ANALYZER_CODES, runBrowserAnalyzers } from '../../src/analyzers/browser-analyzers';
import { mergeBrowserStage } from '../../src/analyzers/browser-stage';
import { makeAnalyzerResult } from '../../src/analyzers/findings';
import { labPerformanceScore } from '../../src/analyzers/lab-scoring';
import { scoreAudit } from '../../src/analyzers/scoring';
import { assembleAuditJson } from '../../src/audits/assemble';
import type { BrowserStageResult, LabMetrics, MeasuredPage } from '../../src/browser/stage-result';
import { auditJsonSchema, type AuditJson } from '../../src/schemas/audit';

const ajv = new Ajv({ strict: true, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(auditJsonSchema);

const O = 'https://shop.example';
const GOOD: LabMetrics = { fcpMs: 900, lcpMs: 1400, cls: 0.01, tbtMs: 40, speedIndexMs: 1500 };

function measured(path: string, metrics: Partial<LabMetrics> = {}, extra: Partial<MeasuredPage> = {}): MeasuredPage {
  return {
    url: `${O}${path}`,
    status: 'measured',
    metrics: { ...GOOD, ...metrics },
    violations: [],
    consoleErrors: [],
    durationMs: 8000,
    ...extra,
  };
}

/** An assembled audit of HTML analyzers only: performance 50 from diagnostics, accessibility 100. */
function baseAudit(): AuditJson {
  return assembleAuditJson({
    auditId: 'aud_01JTEST0000000000000000000',
    domain: O,
    mode: 'live',
    tier: 'pro',
    createdAt: '2026-11-21T10:15:00.000Z',
    startedAt: '2026-11-21T10:15:00.120Z',
    completedAt: '2026-11-21T10:15:09.480Z',
    pageBudget: 100,
    crawlDurationMs: 4200,
    pages: [],
    analyzers: [
      makeAnalyzerResult('PERF_TTFB_SLOW', 'fail', 0.5),
      makeAnalyzerResult('A11Y_IMG_ALT_MISSING', 'pass', 1),
      makeAnalyzerResult('BP_VIEWPORT_MISSING', 'pass', 1),
    ],
    findings: [],
  });
}

function assertValid(audit: AuditJson): void {
  assert.ok(validate(audit), ajv.errorsText(validate.errors));
}

describe('browser stage analyzers', () => {
  it('metric analyzers: good passes, over "good" warns, over "poor" fails, at the control points exactly', () => {
    const pages = [
      measured('/', { lcpMs: 2500 }),
      measured('/a', { lcpMs: 2501 }),
      measured('/b', { lcpMs: 4001 }),
      measured('/c', { lcpMs: 6200 }),
    ];
    const lcp = runBrowserAnalyzers(pages).get('PERF_LCP_SLOW')!;
    assert.equal(lcp.status, 'fail');
    assert.equal(lcp.score, (4 - 2 - 0.5) / 4);
    assert.equal(lcp.findings.length, 2);
    const [poor, middling] = lcp.findings;
    assert.deepEqual(poor!.urls, [`${O}/b`, `${O}/c`]);
    assert.match(poor!.message, /poor \(over 4\.0 s\) on 2 of 4 sampled pages; worst 6\.2 s/);
    assert.equal(poor!.evidence, `${O}/b 4.0 s; ${O}/c 6.2 s`);
    assert.deepEqual(middling!.urls, [`${O}/a`]);
    const only = runBrowserAnalyzers([measured('/', { cls: 0.11, tbtMs: 200, fcpMs: 3001 })]);
    assert.equal(only.get('PERF_CLS_HIGH')!.status, 'warn');
    assert.equal(only.get('PERF_TBT_HIGH')!.status, 'pass');
    assert.equal(only.get('PERF_FCP_SLOW')!.status, 'fail');
    assert.equal(only.get('PERF_LCP_SLOW')!.status, 'pass');
  });

  it('axe rules: a failing element of the shared layout is one finding naming every affected page', () => {
    const node = { selector: 'footer .legal', html: '<p class="legal">©</p>', message: 'Contrast 2.1:1.' };
    const contrast = { rule: 'color-contrast' as const, nodes: [node] };
    const pages = [
      measured('/', {}, { violations: [contrast] }),
      measured('/a', {}, { violations: [contrast, { rule: 'target-size', nodes: [{ ...node, message: 'Small.' }] }] }),
      measured('/b'),
    ];
    const out = runBrowserAnalyzers(pages);
    const c = out.get('A11Y_COLOR_CONTRAST')!;
    assert.equal(c.status, 'fail');
    assert.equal(c.score, 1 / 3);
    assert.equal(c.findings.length, 1);
    assert.deepEqual(c.findings[0]!.urls, [`${O}/`, `${O}/a`]);
    assert.equal(c.findings[0]!.evidence, '<p class="legal">©</p>');
    assert.deepEqual(out.get('A11Y_TARGET_SIZE')!.findings[0]!.urls, [`${O}/a`]);
    assert.deepEqual(out.get('A11Y_LINK_IN_TEXT_BLOCK'), { status: 'pass', score: 1, findings: [] });
  });

  it('BP_CONSOLE_ERRORS: each error with its source, grouped across pages', () => {
    const err = { source: 'exception' as const, text: 'Uncaught TypeError: x is undefined', url: `${O}/app.js` };
    const out = runBrowserAnalyzers([
      measured('/', {}, { consoleErrors: [err] }),
      measured('/a', {}, { consoleErrors: [err, { source: 'network', text: 'Failed to load resource: 404' }] }),
    ]).get('BP_CONSOLE_ERRORS')!;
    assert.equal(out.status, 'fail');
    assert.equal(out.findings.length, 2);
    assert.match(out.findings[0]!.message, /^Uncaught JavaScript exception/);
    assert.deepEqual(out.findings[0]!.urls, [`${O}/`, `${O}/a`]);
    assert.equal(out.findings[0]!.evidence, `Uncaught TypeError: x is undefined (${O}/app.js)`);
    assert.match(out.findings[1]!.message, /^Failed request/);
  });

  it('without a measured page every browser analyzer is not_applicable', () => {
    for (const [, o] of runBrowserAnalyzers([])) assert.equal(o.status, 'not_applicable');
  });
});

describe('mergeBrowserStage', () => {
  it('stage did not run: browser analyzers not_applicable, scored from diagnostics, says so', () => {
    const base = baseAudit();
    const merged = mergeBrowserStage(base, null);
    assertValid(merged);
    assert.deepEqual(merged.browser, {
      performance_basis: 'diagnostics',
      performance_score: null,
      duration_ms: 0,
      pages: [],
    });
    assert.deepEqual(merged.categories, base.categories);
    assert.equal(merged.score, base.score);
    for (const code of BROWSER_ANALYZER_CODES)
      assert.equal(merged.analyzers.find((a) => a.code === code)!.status, 'not_applicable');
    assert.equal(merged.analyzers.find((a) => a.code === 'PERF_TTFB_SLOW')!.weight, 3);
  });

  it('no page rendered: the unrenderable pages are listed with their reason, performance from diagnostics', () => {
    const merged = mergeBrowserStage(baseAudit(), {
      pages: [{ url: `${O}/`, status: 'unrenderable', reason: 'The page did not finish loading within 30 s.' }],
      durationMs: 30_400,
    });
    assertValid(merged);
    assert.equal(merged.browser!.performance_basis, 'diagnostics');
    assert.equal(merged.browser!.duration_ms, 30_400);
    assert.equal(merged.categories.performance!.score, 50);
  });

  it('stage ran: performance = mean Lighthouse score of the measured pages; its analyzers weigh 0', () => {
    const slow = { fcpMs: 3400, lcpMs: 5200.4, cls: 0.31234, tbtMs: 750, speedIndexMs: 6100 };
    const stage: BrowserStageResult = {
      pages: [
        measured('/'),
        measured('/slow', slow, { consoleErrors: [{ source: 'console', text: 'boom' }] }),
        { url: `${O}/huge`, status: 'unrenderable', reason: 'Timed out.' },
      ],
      durationMs: 52_000,
    };
    const merged = mergeBrowserStage(baseAudit(), stage);
    assertValid(merged);
    const b = merged.browser!;
    assert.equal(b.performance_basis, 'lab');
    assert.deepEqual(b.pages[1], {
      url: `${O}/slow`,
      status: 'measured',
      fcp_ms: 3400,
      lcp_ms: 5200,
      cls: 0.3123,
      tbt_ms: 750,
      speed_index_ms: 6100,
      performance_score: labPerformanceScore({ fcp: 3400, lcp: 5200, cls: 0.3123, tbt: 750, si: 6100 }),
    });
    assert.deepEqual(b.pages[2], { url: `${O}/huge`, status: 'unrenderable', reason: 'Timed out.' });
    const scores = b.pages.flatMap((p) => ('performance_score' in p ? [p.performance_score] : []));
    assert.equal(scores[0], 100);
    assert.equal(b.performance_score, Math.floor((scores[0]! + scores[1]!) / 2 + 0.5));
    assert.equal(merged.categories.performance!.score, b.performance_score);
    for (const a of merged.analyzers.filter((r) => r.category === 'performance')) assert.equal(a.weight, 0, a.code);
    // Everything stays recomputable from the JSON alone.
    const again = scoreAudit(merged.analyzers, b.performance_score);
    assert.equal(merged.score, again.score);
    assert.equal(merged.grade, again.grade);
    assert.deepEqual(merged.categories, again.categories);
    // Findings: slow page on LCP, CLS, TBT, FCP; the console error in best practices.
    const flagged = new Set(merged.findings.map((f) => f.analyzer));
    assert.deepEqual([...flagged].sort(), [
      'BP_CONSOLE_ERRORS',
      'PERF_CLS_HIGH',
      'PERF_FCP_SLOW',
      'PERF_LCP_SLOW',
      'PERF_TBT_HIGH',
    ]);
    assert.ok(merged.findings.every((f) => f.urls.length === 1 && f.urls[0] === `${O}/slow`));
    assert.equal(merged.analyzers.find((a) => a.code === 'BP_CONSOLE_ERRORS')!.weight, 3);
    // Most severe first: the high LCP finding leads.
    assert.equal(merged.findings[0]!.analyzer, 'PERF_LCP_SLOW');
  });

  it('is idempotent: merging the same stage again gives the same JSON', () => {
    const stage: BrowserStageResult = { pages: [measured('/', { lcpMs: 3000 })], durationMs: 9000 };
    const once = mergeBrowserStage(baseAudit(), stage);
    const twice = mergeBrowserStage(once, stage);
    assert.equal(JSON.stringify(twice), JSON.stringify(once));
    // And merging "did not run" afterwards restores the diagnostics weights.
    const back = mergeBrowserStage(once, null);
    assert.equal(back.analyzers.find((a) => a.code === 'PERF_TTFB_SLOW')!.weight, 3);
    assert.equal(back.categories.performance!.score, 50);
  });

  it('keeps the audit JSON key order, with browser after crawl, and whatever was attached before', () => {
    const keys = Object.keys(mergeBrowserStage(baseAudit(), null));
    assert.deepEqual(keys.slice(keys.indexOf('crawl'), keys.indexOf('crawl') + 3), ['crawl', 'browser', 'created_at']);
    const comparison = {
      previous_audit_id: 'aud_01JPREV00000000000000000000',
      previous_score: 70,
      score_delta: 3,
      categories: {},
      new: [],
      fixed: [],
      unchanged: 4,
    };
    const merged = mergeBrowserStage({ ...baseAudit(), comparison }, null);
    assertValid(merged);
    assert.deepEqual(merged.comparison, comparison);
    assert.equal(Object.keys(merged).at(-1), 'comparison');
  });
});
