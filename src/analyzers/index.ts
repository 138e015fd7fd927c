import type { AnalyzerResult, CrawledPage, Finding } from '../schemas/audit';
import { A11Y_PAGE_ANALYZERS } from './a11y-page';
import { BEST_PRACTICE_ANALYZERS } from './best-practices';
import { catalogIndex } from './catalog';
import { FindingIdAllocator, makeAnalyzerResult, makeFinding } from './findings';
import { parsePages, type ParsedPage } from './parse';
import { PERFORMANCE_PAGE_ANALYZERS } from './performance-page';
import { SECURITY_HEADER_ANALYZERS } from './security-headers';
import { SEO_PAGE_ANALYZERS, titleText } from './seo-page';
import { headerValue, type CrawlSnapshot } from './snapshot';
import type { Analyzer } from './types';

export type { Analyzer, AnalyzerOutcome, FindingDraft } from './types';
export type { CrawlSnapshot, SnapshotPage } from './snapshot';

/**
 * Analyzers that exist so far, in catalog order. Codes of the catalog not listed here are not run
 * and do not appear in an audit's `analyzers[]` (so they neither pass nor weigh on the score).
 */
export const IMPLEMENTED_ANALYZERS: readonly Analyzer[] = Object.freeze(
  [...SECURITY_HEADER_ANALYZERS, ...SEO_PAGE_ANALYZERS, ...PERFORMANCE_PAGE_ANALYZERS, ...A11Y_PAGE_ANALYZERS, ...BEST_PRACTICE_ANALYZERS]
    .sort((a, b) => catalogIndex(a.code) - catalogIndex(b.code)),
);

export interface RunOptions {
  /** Defaults to IMPLEMENTED_ANALYZERS. */
  analyzers?: readonly Analyzer[];
  /** Told about an analyzer that threw; it is reported as `error` instead of failing the audit. */
  onError?: (code: string, error: unknown) => void;
}

export interface AnalysisResult {
  analyzers: AnalyzerResult[];
  findings: Finding[];
  /** Per-page summaries for the audit's `crawl.pages` (titles come from the same parse). */
  pages: CrawledPage[];
}

export function runAnalyzers(snapshot: CrawlSnapshot, options: RunOptions = {}): AnalysisResult {
  const parsed = parsePages(snapshot.pages); // once per page, shared by every analyzer
  const ids = new FindingIdAllocator();
  const analyzers: AnalyzerResult[] = [];
  const findings: Finding[] = [];
  for (const analyzer of options.analyzers ?? IMPLEMENTED_ANALYZERS) {
    let outcome;
    try {
      outcome = analyzer.run(snapshot, parsed);
    } catch (error) {
      options.onError?.(analyzer.code, error);
      analyzers.push(makeAnalyzerResult(analyzer.code, 'error', 0));
      continue;
    }
    analyzers.push(makeAnalyzerResult(analyzer.code, outcome.status, outcome.score));
    for (const draft of outcome.findings) findings.push(makeFinding(analyzer.code, draft, ids));
  }
  return { analyzers, findings, pages: parsed.map(summarizePage) };
}

export function summarizePage(p: ParsedPage): CrawledPage {
  return {
    url: p.url,
    status_code: p.page.status,
    depth: p.page.depth,
    ttfb_ms: Math.max(0, Math.round(p.page.ttfbMs)),
    bytes: Math.max(0, Math.round(p.page.bytes)),
    content_type: headerValue(p.page.headers, 'content-type') ?? null,
    title: p.isHtml ? titleText(p) : null,
  };
}
