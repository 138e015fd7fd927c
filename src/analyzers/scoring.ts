import { CATEGORIES, type AnalyzerStatus, type Category, type Grade, type Severity } from '../schemas/audit';
import { CATEGORY_WEIGHTS, SEVERITY_WEIGHTS } from './catalog';

/**
 * scoring_version 1 (docs/analyzers.md, Scoring). Pure arithmetic over analyzer results, so the
 * published numbers can be recomputed by anyone from `analyzers[]` alone.
 */

export const SCORING_VERSION = 1 as const;

/** A failed critical analyzer caps its category here. */
export const CRITICAL_FAIL_CAP = 49;

/** What scoring needs from an analyzer result (a subset of the schema's AnalyzerResult). */
export interface ScorableAnalyzer {
  readonly category: Category;
  readonly severity: Severity;
  readonly status: AnalyzerStatus;
  readonly score: number;
}

export interface CategoryScore {
  score: number;
  weight: number;
}

export type CategoryScores = Partial<Record<Category, CategoryScore>>;

export interface AuditScore {
  categories: CategoryScores;
  score: number;
  grade: Grade;
}

/** not_applicable and error carry no weight: they were not measured. */
export function analyzerWeight(severity: Severity, status: AnalyzerStatus): number {
  return status === 'not_applicable' || status === 'error' ? 0 : SEVERITY_WEIGHTS[severity];
}

/**
 * Half-up rounding that is not fooled by binary fractions: 100 × 0.845 is 84.49999999999999 in
 * floating point, yet the published rule is arithmetic on decimals, so it must round to 85.
 */
export function roundScore(x: number): number {
  return Math.floor(x + 0.5 + 1e-9);
}

/**
 * Category scores over applicable analyzers. A category whose applicable weight is zero (nothing
 * measured, or only info analyzers) is absent, not 0 or 100.
 */
export function scoreCategories(analyzers: readonly ScorableAnalyzer[]): CategoryScores {
  const sums = new Map<Category, { w: number; ws: number; criticalFailed: boolean }>();
  for (const a of analyzers) {
    const w = analyzerWeight(a.severity, a.status);
    const s = sums.get(a.category) ?? { w: 0, ws: 0, criticalFailed: false };
    s.w += w;
    s.ws += w * clamp01(a.score);
    if (a.severity === 'critical' && a.status === 'fail') s.criticalFailed = true;
    sums.set(a.category, s);
  }
  const out: CategoryScores = {};
  for (const category of CATEGORIES) {
    const s = sums.get(category);
    if (!s || s.w === 0) continue;
    let score = roundScore((100 * s.ws) / s.w);
    if (s.criticalFailed) score = Math.min(score, CRITICAL_FAIL_CAP);
    out[category] = { score, weight: CATEGORY_WEIGHTS[category] };
  }
  return out;
}

/**
 * Weighted mean of the present categories, rounded. With no category present at all (nothing could
 * be measured) the result is 0: we do not award a grade for an audit that checked nothing.
 */
export function overallScore(categories: CategoryScores): number {
  let w = 0;
  let ws = 0;
  for (const category of CATEGORIES) {
    const c = categories[category];
    if (!c) continue;
    w += c.weight;
    ws += c.weight * c.score;
  }
  return w === 0 ? 0 : roundScore(ws / w);
}

export function gradeFor(score: number): Grade {
  if (score >= 97) return 'A+';
  if (score >= 90) return 'A';
  if (score >= 80) return 'B';
  if (score >= 70) return 'C';
  if (score >= 60) return 'D';
  return 'F';
}

/**
 * `labPerformance`: the browser stage's performance score (mean Lighthouse score of the measured
 * pages). When given, it is the performance category's score; its analyzers then carry no weight
 * (they are recommendations), so every number stays recomputable from the audit JSON.
 */
export function scoreAudit(analyzers: readonly ScorableAnalyzer[], labPerformance: number | null = null): AuditScore {
  const categories = scoreCategories(
    labPerformance === null ? analyzers : analyzers.filter((a) => a.category !== 'performance'),
  );
  if (labPerformance !== null)
    categories.performance = { score: roundScore(labPerformance), weight: CATEGORY_WEIGHTS.performance };
  const score = overallScore(categories);
  return { categories, score, grade: gradeFor(score) };
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
