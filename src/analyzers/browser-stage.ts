import type { BrowserPageResult, BrowserStageResult, LabMetrics, MeasuredPage } from '../browser/stage-result';
import { CATEGORIES, type AnalyzerResult, type AuditJson, type BrowserStageJson, type Finding } from '../schemas/audit';
import { BROWSER_ANALYZER_CODES, runBrowserAnalyzers } from './browser-analyzers';
import { catalogIndex, SEVERITY_RANK } from './catalog';
import { FindingIdAllocator, makeAnalyzerResult, makeFinding } from './findings';
import { labPerformanceScore, siteLabScore, type LabValues } from './lab-scoring';
import { analyzerWeight, scoreAudit } from './scoring';

/**
 * Folds the browser stage into an assembled audit (docs/analyzers.md, "Browser stage"): the browser
 * analyzers' results and findings, the measured lab metrics under `browser`, and the scores again.
 * With at least one measured page the performance category is the mean Lighthouse score of the
 * measured pages (`performance_basis: "lab"`) and the performance analyzers become recommendations
 * (weight 0); otherwise (`stage` null: it did not run, or no page rendered) the browser analyzers are
 * not_applicable and performance stays scored from the HTML diagnostics. `judged`: browser analyzers
 * the analysis already judged on every rendered page (`render: "all"`, browser-rendered.ts): their
 * results and findings stay as the audit has them, whatever the sample showed. Pure and idempotent:
 * a result merged again (a retried activity) gives the same JSON.
 */
export function mergeBrowserStage(
  audit: AuditJson,
  stage: BrowserStageResult | null,
  judged: ReadonlySet<string> = new Set(),
): AuditJson {
  const measured = (stage?.pages ?? []).filter((p): p is MeasuredPage => p.status === 'measured');
  const browser = browserJson(stage, measured);
  const lab = browser.performance_basis === 'lab';
  const outcomes = [...runBrowserAnalyzers(measured)].filter(([code]) => !judged.has(code));
  const own = new Set<string>(BROWSER_ANALYZER_CODES.filter((code) => !judged.has(code)));

  const analyzers: AnalyzerResult[] = audit.analyzers.filter((a) => !own.has(a.code));
  for (const [code, o] of outcomes) analyzers.push(makeAnalyzerResult(code, o.status, o.score));
  analyzers.sort((a, b) => catalogIndex(a.code) - catalogIndex(b.code));
  const weighted = analyzers.map((a) => ({
    ...a,
    weight: lab && a.category === 'performance' ? 0 : analyzerWeight(a.severity, a.status),
  }));

  const kept = audit.findings.filter((f) => !own.has(f.analyzer));
  // Ids hash the analyzer code, so these cannot clash with the HTML analyzers' findings.
  const ids = new FindingIdAllocator();
  const added: Finding[] = [];
  for (const [code, o] of outcomes) for (const d of o.findings) added.push(makeFinding(code, d, ids));
  // Same order as the assembled audit: most severe first, then catalog order, stable otherwise.
  const findings = [...kept, ...added].sort(
    (a, b) =>
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || catalogIndex(a.analyzer) - catalogIndex(b.analyzer),
  );

  const scored = scoreAudit(weighted, browser.performance_score);
  const categories: AuditJson['categories'] = {};
  for (const c of CATEGORIES) {
    const cs = scored.categories[c];
    if (cs) categories[c] = { score: cs.score, weight: cs.weight };
  }
  return withKeys(
    audit,
    { score: scored.score, grade: scored.grade, categories, findings, analyzers: weighted },
    browser,
  );
}

/**
 * The audit with some properties replaced, every other one kept (whatever was attached before, such
 * as a comparison) and `browser` right after `crawl`: the original key order, so the same audit
 * always serializes to the same bytes.
 */
function withKeys(audit: AuditJson, replaced: Partial<AuditJson>, browser: BrowserStageJson): AuditJson {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(audit)) {
    if (key === 'browser') continue;
    out[key] = key in replaced ? replaced[key as keyof AuditJson] : value;
    if (key === 'crawl') out.browser = browser;
  }
  if (!('browser' in out)) out.browser = browser;
  return out as AuditJson;
}

function browserJson(stage: BrowserStageResult | null, measured: readonly MeasuredPage[]): BrowserStageJson {
  const pages = (stage?.pages ?? []).map(pageJson);
  const score = siteLabScore(
    pages.flatMap((p) => (p.status === 'measured' && 'performance_score' in p ? [p.performance_score] : [])),
  );
  return {
    performance_basis: measured.length > 0 && score !== null ? 'lab' : 'diagnostics',
    performance_score: score,
    duration_ms: Math.max(0, Math.round(stage?.durationMs ?? 0)),
    pages,
  };
}

/**
 * Published metrics are rounded (whole milliseconds, CLS to 4 decimals) and the page's score is
 * computed from the published values, so anyone can recompute it from the JSON.
 */
function publishedMetrics(m: LabMetrics): LabValues {
  const ms = (v: number): number => Math.max(0, Math.round(Number.isFinite(v) ? v : 0));
  const cls = Math.max(0, Math.round((Number.isFinite(m.cls) ? m.cls : 0) * 10_000) / 10_000);
  return { fcp: ms(m.fcpMs), lcp: ms(m.lcpMs), cls, tbt: ms(m.tbtMs), si: ms(m.speedIndexMs) };
}

/**
 * A page's performance score exactly as the audit publishes it: the browser pool's median rule
 * (src/browser/steady-score.ts) ranks a page's runs by it.
 */
export function pageLabScore(metrics: LabMetrics): number {
  return labPerformanceScore(publishedMetrics(metrics));
}

function pageJson(p: BrowserPageResult): BrowserStageJson['pages'][number] {
  if (p.status === 'unrenderable')
    return { url: p.url, status: 'unrenderable', reason: p.reason.trim() || 'The page could not be rendered.' };
  const m = publishedMetrics(p.metrics);
  return {
    url: p.url,
    status: 'measured',
    fcp_ms: m.fcp,
    lcp_ms: m.lcp,
    cls: m.cls,
    tbt_ms: m.tbt,
    speed_index_ms: m.si,
    performance_score: labPerformanceScore(m),
  };
}
