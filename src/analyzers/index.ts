import type { AnalyzerResult, Finding } from '../schemas/audit';
import { summarizePage, type PageSummary } from './page-summary';
import { A11Y_PAGE_ANALYZERS } from './a11y-page';
import { A11Y_FORM_ANALYZERS } from './a11y-forms';
import { ariaInvalid } from './a11y-aria';
import { headingOrder } from './a11y-headings';
import { BEST_PRACTICE_SITE_ANALYZERS } from './best-practices-site';
import { PERFORMANCE_SITE_ANALYZERS } from './performance-site';
import { SEO_LINK_ANALYZERS } from './seo-links';
import { SEO_SITE_ANALYZERS } from './seo-site';
import { SEO_STRUCTURE_ANALYZERS } from './seo-structure';
import { BEST_PRACTICE_ANALYZERS } from './best-practices';
import { catalogIndex } from './catalog';
import { FindingIdAllocator, makeAnalyzerResult, makeFinding } from './findings';
import { parsePage, stylesheetTexts, type StylesheetTexts } from './parse';
import { PERFORMANCE_PAGE_ANALYZERS } from './performance-page';
import { SECURITY_HEADER_ANALYZERS } from './security-headers';
import { SECURITY_CONTENT_ANALYZERS } from './security-content';
import { SECURITY_TRANSPORT_ANALYZERS } from './security-transport';
import { DNS_EMAIL_ANALYZERS } from './dns-email';
import { SEO_PAGE_ANALYZERS } from './seo-page';
import type { CrawlSnapshot, SnapshotPage } from './snapshot';
import type { Analyzer, AnalyzerOutcome, Observed } from './types';

export type { Analyzer, AnalyzerOutcome, FindingDraft, Observed } from './types';
export type { CrawlSnapshot, SnapshotPage } from './snapshot';
export type { PageSummary } from './page-summary';

/**
 * Every analyzer an audit runs, in catalog order. A catalog code without an analyzer here would not
 * be run and would not appear in an audit's `analyzers[]` (the README table marks it "not run yet").
 */
export const ANALYZERS: readonly Analyzer[] = Object.freeze(
  [
    ...SECURITY_HEADER_ANALYZERS,
    ...SEO_PAGE_ANALYZERS,
    ...PERFORMANCE_PAGE_ANALYZERS,
    ...A11Y_PAGE_ANALYZERS,
    ...BEST_PRACTICE_ANALYZERS,
    ...SEO_SITE_ANALYZERS,
    ...SEO_LINK_ANALYZERS,
    ...SEO_STRUCTURE_ANALYZERS,
    ...PERFORMANCE_SITE_ANALYZERS,
    ...A11Y_FORM_ANALYZERS,
    ariaInvalid,
    headingOrder,
    ...BEST_PRACTICE_SITE_ANALYZERS,
    ...SECURITY_TRANSPORT_ANALYZERS,
    ...SECURITY_CONTENT_ANALYZERS,
    ...DNS_EMAIL_ANALYZERS,
  ].sort((a, b) => catalogIndex(a.code) - catalogIndex(b.code)),
);

export interface RunOptions {
  /** Defaults to ANALYZERS. */
  analyzers?: readonly Analyzer[];
  /** Told about an analyzer that threw; it is reported as `error` instead of failing the audit. */
  onError?: (code: string, error: unknown) => void;
}

export interface AnalysisResult {
  analyzers: AnalyzerResult[];
  findings: Finding[];
  /** Per-page summaries for `crawl.pages` and the pages listing (titles come from the same parse). */
  pages: PageSummary[];
}

/**
 * Page by page: each page is parsed once, every analyzer observes it, and its tree is dropped before
 * the next page, so memory stays bounded by one DOM plus the analyzers' small observations.
 */
export function runAnalyzers(snapshot: CrawlSnapshot, options: RunOptions = {}): AnalysisResult {
  const run = new AnalysisRun(options, stylesheetTexts(snapshot));
  for (const page of snapshot.pages) run.observe(page);
  return run.finish(snapshot);
}

/**
 * The same analysis, giving the event loop back every `sliceMs` of work: a worker analysing a large
 * site keeps sending its activity heartbeats, so it is never mistaken for a lost worker.
 */
export async function runAnalyzersInSlices(
  snapshot: CrawlSnapshot,
  options: RunOptions & { sliceMs?: number; onSlice?: (pagesDone: number) => void } = {},
): Promise<AnalysisResult> {
  return runAnalyzersOverBodies(
    snapshot,
    (async function* () {
      for (const page of snapshot.pages) yield page.body;
    })(),
    options,
  );
}

/**
 * The analysis of a stored crawl: `snapshot.pages` hold no bodies, and `bodies` yields each page's
 * body in the same order. Each page is parsed with its body and observed; the observation keeps the
 * body-less page, so a site's HTML never sits in memory all at once.
 */
export async function runAnalyzersOverBodies(
  snapshot: CrawlSnapshot,
  bodies: AsyncIterable<string | null>,
  options: RunOptions & { sliceMs?: number; onSlice?: (pagesDone: number) => void } = {},
): Promise<AnalysisResult> {
  const sliceMs = options.sliceMs ?? 50;
  const run = new AnalysisRun(options, stylesheetTexts(snapshot));
  let sliceStart = performance.now();
  let index = 0;
  for await (const body of bodies) {
    const kept = snapshot.pages[index++];
    if (!kept) break;
    run.observe({ ...kept, body }, kept);
    if (performance.now() - sliceStart >= sliceMs) {
      options.onSlice?.(index);
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return run.finishInSlices(snapshot, sliceMs, () => options.onSlice?.(index));
}

/**
 * One analysis: pages are observed one at a time, then every analyzer finishes on its observations.
 * A page's own facts are kept once and each analyzer keeps only its values; an analyzer's
 * observation list is built when it finishes and dropped after, so a large site costs one pointer
 * per page and analyzer rather than an object.
 */
class AnalysisRun {
  private readonly list: readonly Analyzer[];
  private readonly seen: Omit<Observed<unknown>, 'value'>[] = [];
  private readonly values: unknown[][];
  private readonly failed: boolean[];
  private readonly pages: PageSummary[] = [];

  constructor(
    private readonly options: RunOptions,
    private readonly stylesheets: StylesheetTexts,
  ) {
    this.list = options.analyzers ?? ANALYZERS;
    this.values = this.list.map(() => []);
    this.failed = this.list.map(() => false);
  }

  /** `kept`: the page the observations keep (without its body), when not the page itself. */
  observe(page: SnapshotPage, kept: SnapshotPage = page): void {
    const parsed = parsePage(page, this.stylesheets);
    this.seen.push({ url: parsed.url, page: kept, isHtml: parsed.isHtml });
    this.list.forEach((analyzer, i) => {
      if (this.failed[i]) return;
      try {
        this.values[i]!.push(analyzer.observe(parsed));
      } catch (error) {
        this.fail(i, error);
      }
    });
    this.pages.push(summarizePage(parsed));
  }

  finish(snapshot: CrawlSnapshot): AnalysisResult {
    const result = this.emptyResult();
    const ids = new FindingIdAllocator();
    this.list.forEach((_, i) => this.finishAnalyzer(i, snapshot, result, ids));
    return result;
  }

  /** finish, giving the event loop back between analyzers: a large site's heartbeats keep going out. */
  async finishInSlices(snapshot: CrawlSnapshot, sliceMs: number, onSlice?: () => void): Promise<AnalysisResult> {
    const result = this.emptyResult();
    const ids = new FindingIdAllocator();
    let sliceStart = performance.now();
    for (let i = 0; i < this.list.length; i++) {
      this.finishAnalyzer(i, snapshot, result, ids);
      if (performance.now() - sliceStart >= sliceMs) {
        onSlice?.();
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    return result;
  }

  private emptyResult(): AnalysisResult {
    return { analyzers: [], findings: [], pages: this.pages };
  }

  private finishAnalyzer(i: number, snapshot: CrawlSnapshot, result: AnalysisResult, ids: FindingIdAllocator): void {
    const analyzer = this.list[i]!;
    let outcome: AnalyzerOutcome | null = null;
    if (!this.failed[i]) {
      try {
        const values = this.values[i]!;
        outcome = analyzer.finish(
          snapshot,
          this.seen.map((facts, j) => ({ ...facts, value: values[j] })),
        );
        this.values[i] = [];
      } catch (error) {
        this.fail(i, error);
      }
    }
    if (!outcome) return void result.analyzers.push(makeAnalyzerResult(analyzer.code, 'error', 0));
    result.analyzers.push(makeAnalyzerResult(analyzer.code, outcome.status, outcome.score));
    for (const draft of outcome.findings) result.findings.push(makeFinding(analyzer.code, draft, ids));
  }

  private fail(i: number, error: unknown): void {
    if (!this.failed[i]) this.options.onError?.(this.list[i]!.code, error);
    this.failed[i] = true;
  }
}
