import type { AnalyzerStatus, Severity } from '../schemas/audit';
import type { AnalyzerCode } from './catalog';
import type { ParsedPage } from './parse';
import type { CrawlSnapshot, SnapshotPage } from './snapshot';

/** A finding before the runner adds id, category, title and recommendation from the catalog. */
export interface FindingDraft {
  /** What was found, concretely (counts, values). */
  message: string;
  /** Short excerpt: a header line, an element's outerHTML, a record. */
  evidence: string;
  /** Affected pages or resources. */
  urls: string[];
  /** Overrides the catalog severity for this finding (e.g. a certificate expiring within 7 days). */
  severity?: Severity;
  /** The resource it is about (a cookie, a header), when the analyzer reports resources apart; else the site. Part of the fingerprint. */
  subject?: string;
}

export interface AnalyzerOutcome {
  status: AnalyzerStatus;
  /** 0–1. Per-page checks: share of applicable pages that pass (a warning counts half). */
  score: number;
  findings: FindingDraft[];
}

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

export const MAX_FINDINGS_PER_ANALYZER = 20;
export const EVIDENCE_MAX = 300;
/** Issues a page check lists for one page at most. */
export const MAX_ISSUES_PER_PAGE = 20;

export function notApplicable(): AnalyzerOutcome {
  return { status: 'not_applicable', score: 0, findings: [] };
}

export function errored(): AnalyzerOutcome {
  return { status: 'error', score: 0, findings: [] };
}

// ── per-page checks ────────────────────────────────────────────────────────────────────────────

export interface Issue {
  outcome: 'warn' | 'fail';
  /** Page-independent wording, so identical problems on many pages group into one finding. */
  message: string;
  evidence: string;
  severity?: Severity;
  /** As FindingDraft.subject: the resource the issue is about, if not the site. Issues of one subject make one finding. */
  subject?: string;
}

/** Outcome of one page; null from a check means the check does not apply to that page. */
export interface PageResult {
  outcome: 'pass' | 'warn' | 'fail';
  issues: Issue[];
}

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

const OUTCOME_SCORE = { pass: 1, warn: 0.5, fail: 0 } as const;

/**
 * Runs a check on every page (or other unit with a URL, e.g. a response) it applies to. Score = mean page score (pass 1, warn ½, fail 0); status =
 * worst page outcome; no applicable page → not_applicable. Identical issues (same message and
 * evidence, e.g. a header missing site-wide or a logo in the shared layout) become one finding listing
 * every affected URL.
 */
export function perPage<T extends { readonly url: string }>(
  pages: readonly T[],
  check: (p: T) => PageResult | null,
): AnalyzerOutcome {
  const tally = new PageTally();
  for (const p of pages) tally.add(p.url, check(p));
  return tally.outcome();
}

/**
 * perPage one page at a time, for pages that are never all in memory (the rendered-DOM checks of a
 * `render: "all"` crawl, read back from Postgres): it keeps the counts and each finding's URLs only.
 */
export class PageTally {
  private applicable = 0;
  private total = 0;
  private worst: PageResult['outcome'] = 'pass';
  // A group's set of URLs is made when its second URL arrives: most groups (a unique title's length
  // warning, say) name one page, and a set each weighed on a whole-site analysis (docs/architecture.md).
  private readonly groups = new Map<string, { issue: Issue; urls: string[]; seen?: Set<string> }>();

  add(url: string, r: PageResult | null): void {
    if (r === null) return;
    this.applicable++;
    this.total += OUTCOME_SCORE[r.outcome];
    if (r.outcome === 'fail' || (r.outcome === 'warn' && this.worst === 'pass')) this.worst = r.outcome;
    for (const issue of r.issues) {
      // Issues naming a subject group by it, so one subject is one finding (its fingerprint unique in
      // the audit); the wording shown is the first page's, a failing page's over a warning one's.
      const key =
        issue.subject !== undefined
          ? `s\u0000${normalizedSubject(issue.subject)}`
          : `${issue.outcome}\u0000${issue.severity ?? ''}\u0000${issue.message}\u0000${issue.evidence}`;
      const g = this.groups.get(key);
      if (!g) {
        this.groups.set(key, { issue, urls: [url] });
        continue;
      }
      if (issue.outcome === 'fail' && g.issue.outcome === 'warn') g.issue = issue;
      if (g.seen) {
        if (g.seen.has(url)) continue;
        g.seen.add(url);
      } else if (g.urls[0] === url) continue;
      else g.seen = new Set([g.urls[0]!, url]);
      g.urls.push(url);
    }
  }

  outcome(): AnalyzerOutcome {
    if (this.applicable === 0) return notApplicable();
    const ordered = [...this.groups.values()].sort(
      (a, b) =>
        (a.issue.outcome === b.issue.outcome ? 0 : a.issue.outcome === 'fail' ? -1 : 1) ||
        b.urls.length - a.urls.length,
    );
    return { status: this.worst, score: this.total / this.applicable, findings: toDrafts(ordered) };
  }
}

// Whitespace that normalizing would change (at an end, a run, or other than a space).
const UNNORMALIZED_SPACE = /^\s|\s$|\s\s|[^\S ]/;

/**
 * A subject with its whitespace collapsed. One already collapsed is returned as it is: replace()
 * builds a new string even when it changes nothing, a chain of slices of ~1 KiB for a title; as the
 * key of a group per distinct title it was most of a large site's title grouping (docs/architecture.md).
 */
function normalizedSubject(subject: string): string {
  return UNNORMALIZED_SPACE.test(subject) ? subject.trim().replace(/\s+/g, ' ') : subject;
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

function toDrafts(groups: { issue: Issue; urls: string[] }[]): FindingDraft[] {
  const drafts = groups.map(({ issue, urls }) => {
    let message = issue.message;
    if (urls.length > 1) message += ` Found at ${urls.length} URLs.`;
    const d: FindingDraft = { message, evidence: issue.evidence, urls };
    if (issue.severity) d.severity = issue.severity;
    if (issue.subject !== undefined) d.subject = issue.subject;
    return d;
  });
  return foldFindings(drafts, 'similar problems');
}

/**
 * At most MAX_FINDINGS_PER_ANALYZER findings, and every affected URL still named: past the cap, the
 * remaining findings fold into the last one, which lists all of their URLs (its evidence is the first
 * folded finding's). `what` names the folded findings in its message, e.g. "broken targets".
 */
export function foldFindings(drafts: FindingDraft[], what: string): FindingDraft[] {
  if (drafts.length <= MAX_FINDINGS_PER_ANALYZER) return drafts;
  const kept = drafts.slice(0, MAX_FINDINGS_PER_ANALYZER - 1);
  const rest = drafts.slice(kept.length);
  const urls = [...new Set(rest.flatMap((d) => d.urls))];
  const first = rest[0]!;
  const folded: FindingDraft = {
    message: `${rest.length} more ${what}${urls.length > 0 ? ` at ${urls.length} URL${urls.length === 1 ? '' : 's'}` : ''}, for example: ${first.message}`,
    evidence: first.evidence,
    urls,
  };
  if (first.severity) folded.severity = first.severity;
  return [...kept, folded];
}

/** A site-level check (one verdict for the whole site). */
export function siteOutcome(status: 'pass' | 'warn' | 'fail', findings: FindingDraft[] = []): AnalyzerOutcome {
  return { status, score: OUTCOME_SCORE[status], findings };
}
