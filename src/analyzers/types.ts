import type { AnalyzerCode } from './catalog';
import type { ParsedPage } from './parse';
import type { CrawlSnapshot, SnapshotPage } from './snapshot';
import { OUTCOME_SCORE, type AnalyzerOutcome, type FindingDraft, type Issue, type PageResult } from './outcome-shapes';
import { perPage } from './page-tally';

export { foldFindings, MAX_FINDINGS_PER_ANALYZER, notApplicable } from './outcome-shapes';
export type { AnalyzerOutcome, FindingDraft, Issue, PageResult } from './outcome-shapes';
export { PageTally, perPage } from './page-tally';

/** What an analyzer keeps from one page: the page's metadata and its own observation. */
export interface Observed<T> {
  readonly url: string;
  readonly page: SnapshotPage;
  readonly isHtml: boolean;
  readonly value: T;
}

/**
 * An analyzer works in two steps so a crawl of thousands of pages never holds their parsed trees at
 * once (a DOM is ~7× its HTML): `observe` sees each page while its tree is alive and keeps only what
 * the analyzer needs (usually the page's verdict), `finish` turns every page's observation into the
 * outcome. `run` does both over already-parsed pages, for tests and one-off use.
 */
export interface Analyzer<T = unknown> {
  readonly code: AnalyzerCode;
  observe(p: ParsedPage): T;
  // Method syntax (bivariant parameters) so every Analyzer<T> fits in one registry.
  finish(snapshot: CrawlSnapshot, observed: readonly Observed<T>[]): AnalyzerOutcome;
  run(snapshot: CrawlSnapshot, pages: readonly ParsedPage[]): AnalyzerOutcome;
}

export function observation<T>(p: ParsedPage, value: T): Observed<T> {
  return { url: p.url, page: p.page, isHtml: p.isHtml, value };
}

export function defineAnalyzer<T>(spec: {
  code: AnalyzerCode;
  observe: (p: ParsedPage) => T;
  finish: (snapshot: CrawlSnapshot, observed: readonly Observed<T>[]) => AnalyzerOutcome;
}): Analyzer<T> {
  return {
    code: spec.code,
    observe: spec.observe,
    finish: spec.finish,
    run: (snapshot, pages) =>
      spec.finish(
        snapshot,
        pages.map((p) => observation(p, spec.observe(p))),
      ),
  };
}

/** A check with one verdict per page (null: does not apply to that page), aggregated by perPage. */
export function pageAnalyzer(
  code: AnalyzerCode,
  check: (p: ParsedPage) => PageResult | null,
): Analyzer<PageResult | null> {
  return defineAnalyzer({ code, observe: check, finish: (_s, observed) => perPage(observed, (o) => o.value) });
}

/** A check of the site as a whole, from the snapshot and the pages' metadata (no markup needed). */
export function siteAnalyzer(
  code: AnalyzerCode,
  fn: (snapshot: CrawlSnapshot, observed: readonly Observed<undefined>[]) => AnalyzerOutcome,
): Analyzer<undefined> {
  return defineAnalyzer({ code, observe: () => undefined, finish: fn });
}

export const EVIDENCE_MAX = 300;
/** Issues a page check lists for one page at most. */
export const MAX_ISSUES_PER_PAGE = 20;

export function errored(): AnalyzerOutcome {
  return { status: 'error', score: 0, findings: [] };
}

// ── per-page checks ────────────────────────────────────────────────────────────────────────────

export const PAGE_PASS: PageResult = Object.freeze({ outcome: 'pass', issues: [] }) as PageResult;

/** `subject`: the kind of problem when a check has several (pages with one kind make one finding). */
export function pageFail(message: string, evidence: string, subject?: string): PageResult {
  return {
    outcome: 'fail',
    issues: [{ outcome: 'fail', message, evidence, ...(subject !== undefined && { subject }) }],
  };
}

export function pageWarn(message: string, evidence: string, subject?: string): PageResult {
  return {
    outcome: 'warn',
    issues: [{ outcome: 'warn', message, evidence, ...(subject !== undefined && { subject }) }],
  };
}

/** Several problems on one page (e.g. each offending <img>): the page takes the worst outcome. */
export function pageIssues(issues: Issue[]): PageResult {
  if (issues.length === 0) return PAGE_PASS;
  // An info-level issue is reported but does not fail or warn the page (e.g. a placeholder-only label).
  const judged = issues.filter((i) => i.severity !== 'info');
  if (judged.length === 0) return { outcome: 'pass', issues };
  return { outcome: judged.some((i) => i.outcome === 'fail') ? 'fail' : 'warn', issues };
}

/**
 * How many distinct values each key is seen with, e.g. the distinct pages sharing a title. A key with
 * one value keeps that value alone and gets a set only with a second: on a large site nearly every
 * title is unique, and a set per title weighed on a whole-site analysis (docs/architecture.md).
 */
export class DistinctPerKey {
  private readonly byKey = new Map<string, string | Set<string>>();

  add(key: string, value: string): void {
    const held = this.byKey.get(key);
    if (held === undefined) this.byKey.set(key, value);
    else if (typeof held !== 'string') held.add(value);
    else if (held !== value) this.byKey.set(key, new Set([held, value]));
  }

  /** Distinct values seen with `key` (0 if never added). */
  count(key: string): number {
    const held = this.byKey.get(key);
    return held === undefined ? 0 : typeof held === 'string' ? 1 : held.size;
  }
}

/** A site-level check (one verdict for the whole site). */
export function siteOutcome(status: 'pass' | 'warn' | 'fail', findings: FindingDraft[] = []): AnalyzerOutcome {
  return { status, score: OUTCOME_SCORE[status], findings };
}
