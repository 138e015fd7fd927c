/**
 * Agreement arithmetic between our verdicts and Lighthouse's (pure): a confusion matrix per check with
 * Lighthouse as the reference, precision and recall, and the ranking of sites by performance score.
 */
import type { Verdict } from './checks';

export interface Tally {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  /** Pairs left out: one side had no verdict. Lighthouse n/a with our fail is counted as FP instead. */
  skipped: number;
}

/** One page's pair of verdicts on one check. */
export interface Pair {
  check: string;
  site: string;
  url: string;
  ours: Verdict;
  lighthouse: Verdict;
  /** The documented difference of definition that explains a disagreement (bench/compare/differences.ts). */
  difference?: string;
}

export const emptyTally = (): Tally => ({ tp: 0, fp: 0, fn: 0, tn: 0, skipped: 0 });

/**
 * Adds one pair to a tally. `fail` is the positive class. Lighthouse's `na` (nothing of that kind on
 * the page, e.g. no image for image-alt) counts as its pass when we report a problem there: a finding
 * about something Lighthouse found nothing to judge on is a false positive. Our `na` (analyzer not
 * run) is never counted.
 */
export function addPair(t: Tally, ours: Verdict, lighthouse: Verdict): Tally {
  if (ours === 'na' || (lighthouse === 'na' && ours === 'pass')) return { ...t, skipped: t.skipped + 1 };
  const lh = lighthouse === 'na' ? 'pass' : lighthouse;
  if (ours === 'fail') return lh === 'fail' ? { ...t, tp: t.tp + 1 } : { ...t, fp: t.fp + 1 };
  return lh === 'fail' ? { ...t, fn: t.fn + 1 } : { ...t, tn: t.tn + 1 };
}

/** Precision TP/(TP+FP); null when we reported nothing (no positive to be right or wrong about). */
export function precision(t: Tally): number | null {
  return t.tp + t.fp === 0 ? null : t.tp / (t.tp + t.fp);
}

/** Recall TP/(TP+FN); null when Lighthouse found nothing. */
export function recall(t: Tally): number | null {
  return t.tp + t.fn === 0 ? null : t.tp / (t.tp + t.fn);
}

export function sumTallies(tallies: readonly Tally[]): Tally {
  return tallies.reduce(
    (a, b) => ({ tp: a.tp + b.tp, fp: a.fp + b.fp, fn: a.fn + b.fn, tn: a.tn + b.tn, skipped: a.skipped + b.skipped }),
    emptyTally(),
  );
}

/** Tallies per check, in the order checks first appear among the pairs. */
export function tallyByCheck(pairs: readonly Pair[]): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const p of pairs) out.set(p.check, addPair(out.get(p.check) ?? emptyTally(), p.ours, p.lighthouse));
  return out;
}

/** Pairs where the two sides disagree (each is a defect of ours or a documented difference). */
export function disagreements(pairs: readonly Pair[]): Pair[] {
  return pairs.filter(
    (p) => p.ours !== 'na' && (p.ours === 'fail' ? p.lighthouse !== 'fail' : p.lighthouse === 'fail'),
  );
}

export interface SiteScore {
  site: string;
  lighthouse: number;
  ours: number;
}

/** Site names best first by a score; ties keep the input order. */
export function rankBy(scores: readonly SiteScore[], side: 'lighthouse' | 'ours'): string[] {
  return scores
    .map((s, i) => ({ s, i }))
    .sort((a, b) => b.s[side] - a.s[side] || a.i - b.i)
    .map(({ s }) => s.site);
}

/**
 * Whether both sides rank the sites the same. Sites whose Lighthouse scores are within `tolerance`
 * points of each other may come in either order on our side: Lighthouse's own run-to-run variance is
 * a few points, so it does not order them.
 */
export function sameRanking(scores: readonly SiteScore[], tolerance = 0): boolean {
  for (const a of scores)
    for (const b of scores) {
      if (a.lighthouse - b.lighthouse > tolerance && a.ours < b.ours) return false;
    }
  return true;
}

/** 0.9612 → "96.1 %"; null → "—". */
export function percent(v: number | null): string {
  return v === null ? '—' : `${(v * 100).toFixed(1)} %`;
}
