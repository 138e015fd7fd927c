import {
  distinctUrls,
  foldedDraft,
  MAX_FINDINGS_PER_ANALYZER,
  notApplicable,
  OUTCOME_SCORE,
  type AnalyzerOutcome,
  type FindingDraft,
  type Issue,
  type PageResult,
} from './outcome-shapes';

/**
 * Per-page verdicts aggregated into an analyzer's outcome (src/analyzers/types.ts re-exports these).
 * Score = mean page score (pass 1, warn ½, fail 0); status = worst page outcome; no applicable page →
 * not_applicable. Identical issues (same message and evidence, e.g. a header missing site-wide or a
 * logo in the shared layout), or issues naming one subject, become one finding listing every
 * affected URL.
 */

/**
 * Runs a check on every page (or other unit with a URL, e.g. a response) it applies to. The check
 * must give the same verdict each time it is asked: where the issues make more groups than
 * ISSUES_KEPT_UP_TO (a title-length warning per distinct title on a large site), their wording is
 * let go as soon as it is made and asked for again, for the few groups that become findings only.
 */
export function perPage<T extends { readonly url: string }>(
  pages: readonly T[],
  check: (p: T) => PageResult | null,
): AnalyzerOutcome {
  const tally = new PageTally(ISSUES_KEPT_UP_TO);
  for (const p of pages) tally.add(p.url, check(p));
  return tally.outcome((wanted) => {
    for (const p of pages) for (const issue of check(p)?.issues ?? []) if (wanted(issue)) return;
  });
}

/**
 * Groups past which perPage keeps no issue's wording: on a 104,171-page site whose titles are all
 * too short, each title's group held its message, evidence and subject, 41–43 MiB in all (15.7 MiB
 * without them; docs/architecture.md, "Durable crawl", Memory).
 */
export const ISSUES_KEPT_UP_TO = 1_000;

/**
 * perPage one page at a time, for pages that are never all in memory (the rendered-DOM checks of a
 * `render: "all"` crawl, read back from Postgres): it keeps the counts, each group's URLs and, up to
 * `keepIssuesUpTo` groups, their wording; never the pages.
 */
export class PageTally {
  private applicable = 0;
  private total = 0;
  private worst: PageResult['outcome'] = 'pass';
  private readonly groups: IssueGroups;

  /** `keepIssuesUpTo`: past this many groups, outcome() is given a way to be told the wording again. */
  constructor(keepIssuesUpTo = Number.POSITIVE_INFINITY) {
    this.groups = new IssueGroups(keepIssuesUpTo);
  }

  add(url: string, r: PageResult | null): void {
    if (r === null) return;
    this.applicable++;
    this.total += OUTCOME_SCORE[r.outcome];
    if (r.outcome === 'fail' || (r.outcome === 'warn' && this.worst === 'pass')) this.worst = r.outcome;
    for (const issue of r.issues) this.groups.add(url, issue);
  }

  /** `retell`: the issues added, again and in the same order, told to `wanted` until it returns true. */
  outcome(retell?: Retell): AnalyzerOutcome {
    if (this.applicable === 0) return notApplicable();
    const findings = this.groups.findings(retell);
    return { status: this.worst, score: this.total / this.applicable, findings };
  }
}

/**
 * The issues by group, with each group's distinct URLs in the order they came. Issues naming a
 * subject group by it, so one subject is one finding (its fingerprint unique in the audit); the
 * wording shown is the first page's, a failing page's over a warning one's. A group's set of URLs is
 * made when its second URL arrives: most groups (a unique title's length warning, say) name one page.
 */
class IssueGroups {
  private readonly ids = new Map<string, number>();
  private readonly firstUrls: string[] = [];
  private readonly urlSets: (Set<string> | undefined)[] = [];
  private readonly failing: boolean[] = [];
  /** Each group's wording; null once the groups outgrew keepIssuesUpTo. */
  private issues: Issue[] | null = [];

  constructor(private readonly keepIssuesUpTo: number) {}

  add(url: string, issue: Issue): void {
    const key = groupKey(issue);
    const id = this.ids.get(key);
    if (id === undefined) return this.open(key, url, issue);
    if (issue.outcome === 'fail' && !this.failing[id]) {
      this.failing[id] = true;
      if (this.issues) this.issues[id] = issue;
    }
    const urls = this.urlSets[id];
    if (urls) urls.add(url);
    else if (this.firstUrls[id] !== url) this.urlSets[id] = new Set([this.firstUrls[id]!, url]);
  }

  /** Failing groups first, then by URLs named; ties in the order the groups began. */
  findings(retell?: Retell): FindingDraft[] {
    const ranked = this.firstUrls.map((_, id) => id);
    ranked.sort((a, b) => Number(this.failing[b]) - Number(this.failing[a]) || this.count(b) - this.count(a));
    const folds = ranked.length > MAX_FINDINGS_PER_ANALYZER;
    const shown = folds ? ranked.slice(0, MAX_FINDINGS_PER_ANALYZER) : ranked;
    const wording = this.issues ?? this.wordingOf(new Set(shown), retell);
    const drafts = shown.map((id) => this.draft(id, wording[id]!));
    if (!folds) return drafts;
    const rest = ranked.slice(MAX_FINDINGS_PER_ANALYZER - 1);
    const urls = distinctUrls(rest.map((id) => this.urlsOf(id)));
    return [...drafts.slice(0, -1), foldedDraft(rest.length, drafts.at(-1)!, urls, 'similar problems')];
  }

  private open(key: string, url: string, issue: Issue): void {
    this.ids.set(key, this.firstUrls.length);
    this.firstUrls.push(url);
    this.urlSets.push(undefined);
    this.failing.push(issue.outcome === 'fail');
    if (!this.issues) return;
    this.issues.push(issue);
    if (this.issues.length > this.keepIssuesUpTo) this.issues = null;
  }

  /**
   * The wording of the groups shown, from the issues told again in order (the same rule as `add`),
   * until each group's is final: its failing issue, or its first where none fails.
   */
  private wordingOf(shown: ReadonlySet<number>, retell?: Retell): Issue[] {
    if (!retell) throw new Error('the issues outgrew what a tally keeps, and nothing can tell them again');
    const wording: Issue[] = [];
    let pending = shown.size;
    retell((issue) => {
      const id = this.ids.get(groupKey(issue));
      if (id === undefined || !shown.has(id)) return false;
      const held = wording[id];
      if (held && (held.outcome === 'fail' || issue.outcome === 'warn')) return false;
      wording[id] = issue;
      if (issue.outcome === 'fail' || !this.failing[id]) pending--;
      return pending === 0;
    });
    return wording;
  }

  private count(id: number): number {
    return this.urlSets[id]?.size ?? 1;
  }

  private urlsOf(id: number): string[] {
    const urls = this.urlSets[id];
    return urls ? [...urls] : [this.firstUrls[id]!];
  }

  private draft(id: number, issue: Issue): FindingDraft {
    const urls = this.urlsOf(id);
    let message = issue.message;
    if (urls.length > 1) message += ` Found at ${urls.length} URLs.`;
    const d: FindingDraft = { message, evidence: issue.evidence, urls };
    if (issue.severity) d.severity = issue.severity;
    if (issue.subject !== undefined) d.subject = issue.subject;
    return d;
  }
}

/** Tells every issue again, in order, to `wanted`, and stops once it returns true. */
type Retell = (wanted: (issue: Issue) => boolean) => void;

function groupKey(issue: Issue): string {
  return issue.subject !== undefined
    ? `s\u0000${normalizedSubject(issue.subject)}`
    : `${issue.outcome}\u0000${issue.severity ?? ''}\u0000${issue.message}\u0000${issue.evidence}`;
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
