import type { AnalyzerStatus, Severity } from '../schemas/audit';
import type { AnalyzerCode } from './catalog';
import type { ParsedPage } from './parse';
import type { CrawlSnapshot } from './snapshot';

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
}

export interface AnalyzerOutcome {
  status: AnalyzerStatus;
  /** 0–1. Per-page checks: share of applicable pages that pass (a warning counts half). */
  score: number;
  findings: FindingDraft[];
}

export interface Analyzer {
  readonly code: AnalyzerCode;
  run(snapshot: CrawlSnapshot, pages: readonly ParsedPage[]): AnalyzerOutcome;
}

export const MAX_FINDINGS_PER_ANALYZER = 20;
export const MAX_URLS_PER_FINDING = 100;
export const EVIDENCE_MAX = 300;

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
}

/** Outcome of one page; null from a check means the check does not apply to that page. */
export interface PageResult {
  outcome: 'pass' | 'warn' | 'fail';
  issues: Issue[];
}

export const PAGE_PASS: PageResult = Object.freeze({ outcome: 'pass', issues: [] }) as PageResult;

export function pageFail(message: string, evidence: string): PageResult {
  return { outcome: 'fail', issues: [{ outcome: 'fail', message, evidence }] };
}

export function pageWarn(message: string, evidence: string): PageResult {
  return { outcome: 'warn', issues: [{ outcome: 'warn', message, evidence }] };
}

/** Several problems on one page (e.g. each offending <img>): the page takes the worst outcome. */
export function pageIssues(issues: Issue[]): PageResult {
  if (issues.length === 0) return PAGE_PASS;
  return { outcome: issues.some((i) => i.outcome === 'fail') ? 'fail' : 'warn', issues };
}

const OUTCOME_SCORE = { pass: 1, warn: 0.5, fail: 0 } as const;

/**
 * Runs a check on every page (or other unit with a URL, e.g. a response) it applies to. Score = mean page score (pass 1, warn ½, fail 0); status =
 * worst page outcome; no applicable page → not_applicable. Identical issues (same message and
 * evidence, e.g. a header missing site-wide or a logo in the shared layout) become one finding listing
 * every affected URL.
 */
export function perPage<T extends { readonly url: string }>(pages: readonly T[], check: (p: T) => PageResult | null): AnalyzerOutcome {
  let applicable = 0;
  let total = 0;
  let worst: PageResult['outcome'] = 'pass';
  const groups = new Map<string, { issue: Issue; urls: string[]; seen: Set<string> }>();
  for (const p of pages) {
    const r = check(p);
    if (r === null) continue;
    applicable++;
    total += OUTCOME_SCORE[r.outcome];
    if (r.outcome === 'fail' || (r.outcome === 'warn' && worst === 'pass')) worst = r.outcome;
    for (const issue of r.issues) {
      const key = `${issue.outcome}\u0000${issue.severity ?? ''}\u0000${issue.message}\u0000${issue.evidence}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { issue, urls: [], seen: new Set() }));
      if (!g.seen.has(p.url)) {
        g.seen.add(p.url);
        g.urls.push(p.url);
      }
    }
  }
  if (applicable === 0) return notApplicable();
  const ordered = [...groups.values()].sort(
    (a, b) => (a.issue.outcome === b.issue.outcome ? 0 : a.issue.outcome === 'fail' ? -1 : 1) || b.urls.length - a.urls.length,
  );
  return { status: worst, score: total / applicable, findings: toDrafts(ordered) };
}

function toDrafts(groups: { issue: Issue; urls: string[] }[]): FindingDraft[] {
  const kept = groups.slice(0, MAX_FINDINGS_PER_ANALYZER);
  const drafts = kept.map(({ issue, urls }) => {
    let message = issue.message;
    if (urls.length > 1) message += ` Seen on ${urls.length} pages${urls.length > MAX_URLS_PER_FINDING ? ` (first ${MAX_URLS_PER_FINDING} listed)` : ''}.`;
    const d: FindingDraft = { message, evidence: issue.evidence, urls: urls.slice(0, MAX_URLS_PER_FINDING) };
    if (issue.severity) d.severity = issue.severity;
    return d;
  });
  const dropped = groups.length - kept.length;
  if (dropped > 0) drafts[drafts.length - 1]!.message += ` ${dropped} more similar problem${dropped === 1 ? '' : 's'} not listed.`;
  return drafts;
}

/** A site-level check (one verdict for the whole site). */
export function siteOutcome(status: 'pass' | 'warn' | 'fail', findings: FindingDraft[] = []): AnalyzerOutcome {
  return { status, score: OUTCOME_SCORE[status], findings };
}
