import { catalogIndex, SEVERITY_RANK } from '../analyzers/catalog';
import { analyzerWeight, scoreAudit, SCORING_VERSION } from '../analyzers/scoring';
import {
  CATEGORIES,
  type AnalyzerResult,
  type AuditJson,
  type CrawledPage,
  type Finding,
  type Mode,
  type Tier,
} from '../schemas/audit';

/**
 * Builds the audit JSON v1 from analyzer output: applies scoring v1 and fixes the order of keys and
 * arrays, so the same audit always serializes to the same bytes (they are stored, served and signed
 * as-is). It validates nothing: the caller validates with ajv before storing.
 */

export interface AssembleInput {
  auditId: string;
  domain: string;
  mode: Mode;
  tier: Tier;
  createdAt: string;
  startedAt: string;
  completedAt: string;
  pageBudget: number;
  crawlDurationMs: number;
  pages: readonly CrawledPage[];
  /** Pages actually crawled when `pages` lists only some of them; defaults to pages.length. */
  pagesCrawled?: number;
  /** Same-site URLs seen and whether the budget ended the crawl (live audits). */
  pagesDiscovered?: number;
  budgetExhausted?: boolean;
  analyzers: readonly AnalyzerResult[];
  findings: readonly Finding[];
}

export function assembleAuditJson(input: AssembleInput): AuditJson {
  // Weights are recomputed from severity and status so the published numbers always agree with scoring.
  const analyzers = [...input.analyzers]
    .sort((a, b) => catalogIndex(a.code) - catalogIndex(b.code) || cmp(a.code, b.code))
    .map(normalizeAnalyzer);
  const { categories, score, grade } = scoreAudit(analyzers);
  const orderedCategories: AuditJson['categories'] = {};
  for (const c of CATEGORIES) {
    const cs = categories[c];
    if (cs) orderedCategories[c] = { score: cs.score, weight: cs.weight };
  }
  // Most severe first, then catalog order; stable, so an analyzer's own order is kept.
  const findings = [...input.findings]
    .sort(
      (a, b) =>
        SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || catalogIndex(a.analyzer) - catalogIndex(b.analyzer),
    )
    .map(normalizeFinding);
  return {
    audit_id: input.auditId,
    version: 'v1',
    scoring_version: SCORING_VERSION,
    domain: input.domain,
    status: 'completed',
    mode: input.mode,
    tier: input.tier,
    score,
    grade,
    categories: orderedCategories,
    findings,
    analyzers,
    crawl: {
      pages_crawled: input.pagesCrawled ?? input.pages.length,
      page_budget: input.pageBudget,
      ...(input.pagesDiscovered !== undefined ? { pages_discovered: input.pagesDiscovered } : {}),
      ...(input.budgetExhausted !== undefined ? { budget_exhausted: input.budgetExhausted } : {}),
      duration_ms: Math.max(0, Math.round(input.crawlDurationMs)),
      pages: input.pages.map(normalizePage),
    },
    created_at: input.createdAt,
    started_at: input.startedAt,
    completed_at: input.completedAt,
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function normalizeAnalyzer(a: AnalyzerResult): AnalyzerResult {
  return {
    code: a.code,
    category: a.category,
    title: a.title,
    severity: a.severity,
    status: a.status,
    score: a.score,
    weight: analyzerWeight(a.severity, a.status),
  };
}

function normalizeFinding(f: Finding): Finding {
  return {
    id: f.id,
    fingerprint: f.fingerprint,
    analyzer: f.analyzer,
    category: f.category,
    severity: f.severity,
    title: f.title,
    message: f.message,
    recommendation: f.recommendation,
    urls: [...f.urls],
    ...(f.count !== undefined ? { count: f.count } : {}),
    evidence: f.evidence,
  };
}

function normalizePage(p: CrawledPage): CrawledPage {
  const out: CrawledPage = {
    url: p.url,
    status_code: p.status_code,
    depth: p.depth,
    ttfb_ms: p.ttfb_ms,
    bytes: p.bytes,
    content_type: p.content_type,
  };
  if (p.title !== undefined) out.title = p.title;
  return out;
}
