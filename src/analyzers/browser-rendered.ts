import type { RenderedPageChecks } from '../browser/stage-result';
import type { AuditJson } from '../schemas/audit';
import type { AnalysisResult } from './analysis-run';
import { RENDERED_CHECK_CODES, renderedPageCheck, type RenderedCheckCode } from './browser-analyzers';
import { RENDERED_NAME_CODES, renderedNameCheck, type RenderedNameCode } from './browser-rendered-names';
import { catalogIndex } from './catalog';
import { FindingIdAllocator, makeAnalyzerResult, makeFinding } from './findings';
import { errored, PageTally, type AnalyzerOutcome } from './types';

/**
 * `render: "all"` (docs/analyzers.md, "Browser stage"): the rendered-DOM analyzers judged on every
 * page the crawl rendered, not on the sample. Each page's checks were stored by the crawl; the
 * analysis reads them back in crawl order and tallies them page by page, as perPage does, so the
 * counts and every finding's URLs are exact and no site's checks are held at once. The audit then
 * carries these results, and merging the sample's Lighthouse runs leaves them as they are.
 */

export type RenderedOutcomes = ReadonlyMap<RenderedCheckCode | RenderedNameCode, AnalyzerOutcome>;

/**
 * Every rendered page's verdict for each rendered-DOM analyzer, or null when the crawl stored no
 * page's checks (it rendered only application shells, or no browser rendered a page in time). A fold
 * that throws (a bug) leaves these analyzers `error`, as the analysis does for any analyzer. The name
 * analyzers (browser-rendered-names.ts) are there only when the crawl ran the name rules; otherwise
 * the HTML analysis's verdicts stand.
 */
export async function foldRenderedChecks(
  pages: AsyncIterable<RenderedPageChecks>,
  onError?: (error: unknown) => void,
): Promise<RenderedOutcomes | null> {
  const tallies = [
    ...RENDERED_CHECK_CODES.map((code) => ({ code, check: renderedPageCheck(code), tally: new PageTally() })),
    ...RENDERED_NAME_CODES.map((code) => ({ code, check: renderedNameCheck(code), tally: new PageTally() })),
  ];
  let seen = 0;
  let namesRun = false;
  try {
    for await (const page of pages) {
      seen++;
      namesRun ||= page.nameRulesApplied !== undefined;
      for (const { check, tally } of tallies) tally.add(page.url, check(page));
    }
  } catch (error) {
    onError?.(error);
    return new Map(RENDERED_CHECK_CODES.map((code) => [code, errored()]));
  }
  if (seen === 0) return null;
  const judged = new Set<string>(namesRun ? [...RENDERED_CHECK_CODES, ...RENDERED_NAME_CODES] : RENDERED_CHECK_CODES);
  return new Map(tallies.filter(({ code }) => judged.has(code)).map(({ code, tally }) => [code, tally.outcome()]));
}

/**
 * The analysis with the rendered-DOM analyzers' results and findings added (catalog order; the audit
 * sorts findings). The name analyzers' rendered verdicts replace the HTML ones, by the rule the
 * sample's merge follows for analyzers judged on every page: the rendered reading stands.
 */
export function withRenderedChecks(analysis: AnalysisResult, outcomes: RenderedOutcomes | null): AnalysisResult {
  if (!outcomes) return analysis;
  // Ids hash the analyzer code, so these cannot clash with the HTML analyzers' findings.
  const ids = new FindingIdAllocator();
  const analyzers = analysis.analyzers.filter((a) => !outcomes.has(a.code as RenderedNameCode));
  const findings = analysis.findings.filter((f) => !outcomes.has(f.analyzer as RenderedNameCode));
  for (const [code, outcome] of outcomes) {
    analyzers.push(makeAnalyzerResult(code, outcome.status, outcome.score));
    for (const draft of outcome.findings) findings.push(makeFinding(code, draft, ids));
  }
  analyzers.sort((a, b) => catalogIndex(a.code) - catalogIndex(b.code));
  return { ...analysis, analyzers, findings };
}

/**
 * The rendered-DOM analyzers an analysed audit already carries: judged on every rendered page
 * (`render: "all"`), they stand when the browser stage's sample is merged (browser-stage.ts). The
 * HTML analysis never produces them otherwise.
 */
export function judgedOnEveryPage(audit: AuditJson): ReadonlySet<RenderedCheckCode> {
  const codes = new Set<string>(audit.analyzers.map((a) => a.code));
  return new Set(RENDERED_CHECK_CODES.filter((code) => codes.has(code)));
}
