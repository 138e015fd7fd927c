import type { AnalyzerStatus, Severity } from '../schemas/audit';

/**
 * What analyzers produce, and the helpers every outcome uses: the leaf the other analyzer modules
 * build on (src/analyzers/types.ts re-exports it).
 */

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

export const MAX_FINDINGS_PER_ANALYZER = 20;

export const OUTCOME_SCORE = { pass: 1, warn: 0.5, fail: 0 } as const;

export function notApplicable(): AnalyzerOutcome {
  return { status: 'not_applicable', score: 0, findings: [] };
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
  return [...kept, foldedDraft(rest.length, rest[0]!, distinctUrls(rest.map((d) => d.urls)), what)];
}

/** The finding the folded ones become: `first` is the first of the `count` folded, `urls` all of theirs. */
export function foldedDraft(count: number, first: FindingDraft, urls: string[], what: string): FindingDraft {
  const folded: FindingDraft = {
    message: `${count} more ${what}${urls.length > 0 ? ` at ${urls.length} URL${urls.length === 1 ? '' : 's'}` : ''}, for example: ${first.message}`,
    evidence: first.evidence,
    urls,
  };
  if (first.severity) folded.severity = first.severity;
  return folded;
}

/** Every URL of the lists, once, in order of first appearance. */
export function distinctUrls(lists: Iterable<Iterable<string>>): string[] {
  const urls = new Set<string>();
  for (const list of lists) for (const url of list) urls.add(url);
  return [...urls];
}
