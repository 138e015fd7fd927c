/**
 * The performance score of a rendered page as Lighthouse 13 computes it (docs/analyzers.md, "Lab
 * metrics"): each metric is placed on a log-normal curve fixed by two control points (the value that
 * scores 0.9 and the median that scores 0.5, mobile settings of lighthouse@13.5.0's
 * core/audits/metrics/*.js), and the page's score is the weighted mean of the metric scores
 * (core/config/default-config.js). Same arithmetic, same rounding, so a page's score matches the one
 * PageSpeed Insights would show for the same metric values.
 */

export type LabMetricKey = 'fcp' | 'lcp' | 'tbt' | 'cls' | 'si';

export interface ControlPoints {
  /** Value scoring 0.9 (the "good" threshold). */
  readonly p10: number;
  /** Value scoring 0.5 (the "poor" threshold). */
  readonly median: number;
}

/** Mobile control points, as lighthouse@13.5.0's metric audits define them. */
export const LAB_CONTROL_POINTS: Readonly<Record<LabMetricKey, ControlPoints>> = Object.freeze({
  fcp: { p10: 1800, median: 3000 },
  lcp: { p10: 2500, median: 4000 },
  tbt: { p10: 200, median: 600 },
  cls: { p10: 0.1, median: 0.25 },
  si: { p10: 3387, median: 5800 },
});

/** Lighthouse 13's performance category weights (INP weighs 0 in navigation mode). */
export const LAB_WEIGHTS: Readonly<Record<LabMetricKey, number>> = Object.freeze({
  fcp: 10,
  lcp: 25,
  tbt: 30,
  cls: 25,
  si: 10,
});

// The exact doubles Lighthouse clamps each band to (shared/statistics.js).
const MIN_PASSING_SCORE = 0.9000000000000000222;
const MAX_AVERAGE_SCORE = 0.8999999999999999112;
const MIN_AVERAGE_SCORE = 0.5;
const MAX_FAILING_SCORE = 0.49999999999999994449;
/** Closest double to erfc⁻¹(1/5). */
const INVERSE_ERFC_ONE_FIFTH = 0.9061938024368232;

/** Abramowitz and Stegun 7.1.26, the approximation Lighthouse uses (so scores agree to the last digit). */
function erf(x: number): number {
  const sign = Math.sign(x);
  const ax = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * ax);
  const y = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign * (1 - y * Math.exp(-ax * ax));
}

/** Lighthouse's getLogNormalScore: 1 − percentile of `value`, clamped to the band it falls in. */
export function logNormalScore({ p10, median }: ControlPoints, value: number): number {
  if (value <= 0) return 1;
  const xLogRatio = Math.log(Math.max(Number.MIN_VALUE, value / median));
  const p10LogRatio = -Math.log(Math.max(Number.MIN_VALUE, p10 / median));
  const standardizedX = (xLogRatio * INVERSE_ERFC_ONE_FIFTH) / p10LogRatio;
  const complementaryPercentile = (1 - erf(standardizedX)) / 2;
  if (value <= p10) return Math.max(MIN_PASSING_SCORE, Math.min(1, complementaryPercentile));
  if (value <= median) return Math.max(MIN_AVERAGE_SCORE, Math.min(MAX_AVERAGE_SCORE, complementaryPercentile));
  return Math.max(0, Math.min(MAX_FAILING_SCORE, complementaryPercentile));
}

/**
 * A metric's audit score as Lighthouse reports it (Util.computeLogNormalScore): scores above 0.9 get
 * a small boost, then the score is floored to two decimals.
 */
export function metricScore(key: LabMetricKey, value: number): number {
  let percentile = logNormalScore(LAB_CONTROL_POINTS[key], value);
  if (percentile > 0.9) percentile += 0.05 * (percentile - 0.9);
  return Math.floor(percentile * 100) / 100;
}

export type LabValues = Readonly<Record<LabMetricKey, number>>;

/**
 * The page's performance score, 0–100: the weighted mean of the metric scores rounded to two decimals
 * (core/scoring.js), shown ×100 as the report does.
 */
export function labPerformanceScore(values: LabValues): number {
  let sum = 0;
  let weight = 0;
  for (const key of Object.keys(LAB_WEIGHTS) as LabMetricKey[]) {
    sum += metricScore(key, values[key]) * LAB_WEIGHTS[key];
    weight += LAB_WEIGHTS[key];
  }
  const category = Math.round((sum / weight) * 100) / 100;
  return Math.round(category * 100);
}

/** The site's lab score: the mean of its measured pages' scores, rounded half up; null without any. */
export function siteLabScore(pageScores: readonly number[]): number | null {
  if (pageScores.length === 0) return null;
  const mean = pageScores.reduce((a, b) => a + b, 0) / pageScores.length;
  return Math.floor(mean + 0.5 + 1e-9);
}

export type MetricRating = 'good' | 'needs-improvement' | 'poor';

/** Lighthouse's colour bands: good up to p10, needs improvement up to the median, poor beyond. */
export function metricRating(key: LabMetricKey, value: number): MetricRating {
  const { p10, median } = LAB_CONTROL_POINTS[key];
  return value <= p10 ? 'good' : value <= median ? 'needs-improvement' : 'poor';
}
