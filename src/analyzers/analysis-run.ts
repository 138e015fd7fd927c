import type { AnalyzerResult, Finding } from '../schemas/audit';
import { FindingIdAllocator, makeAnalyzerResult, makeFinding } from './findings';
import { releaseFinishGarbage } from './heap-release';
import { ObservationSpill } from './observation-spill';
import { observeEvery, type ObservedPart } from './observed-part';
import { PageSummaries } from './page-summaries';
import { summarizePage, type PageSummary } from './page-summary';
import { parsePage, type StylesheetTexts } from './parse';
import type { CrawlSnapshot, SnapshotPage } from './snapshot';
import type { Analyzer, AnalyzerOutcome, Observed } from './types';

export interface RunOptions {
  /** Defaults to every analyzer (ANALYZERS). */
  analyzers?: readonly Analyzer[];
  /** Told about an analyzer that threw; it is reported as `error` instead of failing the audit. */
  onError?: (code: string, error: unknown) => void;
  /** Pages whose observations are held before they go to the scratch file (default SPILL_CHUNK_PAGES). */
  spillChunkPages?: number;
}

export interface AnalysisResult {
  analyzers: AnalyzerResult[];
  findings: Finding[];
  /**
   * Per-page summaries for `crawl.pages` and the pages listing (titles come from the same parse), in
   * crawl order; held outside the heap (PageSummaries), so they are gone over rather than indexed.
   */
  pages: Iterable<PageSummary> & { readonly length: number };
}

/**
 * One analysis: pages are observed one at a time, then every analyzer finishes on its observations.
 * A page's own facts are kept once; each analyzer's values go to an ObservationSpill, and an
 * analyzer's observation list is read back and built only while it finishes, so the run holds one
 * analyzer's observations at a time. `close` (or finishing) removes the spill's scratch file.
 */
export class AnalysisRun {
  /**
   * Every page's observation, its `value` slot filled with one analyzer's value at a time while that
   * analyzer finishes: the same objects serve every analyzer, so finishing makes no garbage per page.
   */
  private readonly seen: Array<{ -readonly [K in keyof Observed<unknown>]: Observed<unknown>[K] }> = [];
  private readonly spill: ObservationSpill;
  private readonly failed: boolean[];
  private readonly pages = new PageSummaries();

  constructor(
    private readonly list: readonly Analyzer[],
    private readonly options: RunOptions,
    private readonly stylesheets: StylesheetTexts,
  ) {
    this.spill = new ObservationSpill(list.length, options.spillChunkPages);
    this.failed = list.map(() => false);
  }

  /** `kept`: the page the observations keep (without its body), when not the page itself. */
  observe(page: SnapshotPage, kept: SnapshotPage = page): void {
    const parsed = parsePage(page, this.stylesheets);
    this.seen.push({ url: parsed.url, page: kept, isHtml: parsed.isHtml, value: undefined });
    observeEvery(
      this.list,
      parsed,
      this.failed,
      (i, error) => this.fail(i, error),
      (i, value) => this.spill.push(i, value),
    );
    this.pages.push(summarizePage(parsed));
    this.spill.pageDone(this.seen.length);
  }

  /**
   * The next pages, observed beforehand (observePart, on any worker): `kept` are those pages as the
   * observations keep them. The part must have been observed by this run's analyzers.
   */
  addObserved(part: ObservedPart, kept: readonly SnapshotPage[]): void {
    if (this.list.map((analyzer) => analyzer.code).join(',') !== part.analyzers.join(','))
      throw new Error('the part was observed by other analyzers than this run has');
    kept.forEach((page, k) =>
      this.seen.push({ url: page.finalUrl, page, isHtml: part.html[k] === 1, value: undefined }),
    );
    part.values.forEach((values, i) => this.spill.append(i, values));
    for (const { code, message } of part.failed)
      this.fail(
        this.list.findIndex((analyzer) => analyzer.code === code),
        new Error(message),
      );
    this.pages.append(part.summaries, kept.length);
  }

  finish(snapshot: CrawlSnapshot): AnalysisResult {
    try {
      const result = this.emptyResult();
      const ids = new FindingIdAllocator();
      this.list.forEach((_, i) => this.finishAnalyzer(i, snapshot, result, ids));
      return result;
    } finally {
      this.close();
    }
  }

  /** finish, giving the event loop back between analyzers: a large site's heartbeats keep going out. */
  async finishInSlices(snapshot: CrawlSnapshot, sliceMs: number, onSlice?: () => void): Promise<AnalysisResult> {
    try {
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
    } finally {
      this.close();
    }
  }

  /** Drops the run's scratch file; for a run abandoned before it finishes. */
  close(): void {
    this.spill.close();
  }

  private emptyResult(): AnalysisResult {
    return { analyzers: [], findings: [], pages: this.pages };
  }

  private finishAnalyzer(i: number, snapshot: CrawlSnapshot, result: AnalysisResult, ids: FindingIdAllocator): void {
    const analyzer = this.list[i]!;
    let outcome: AnalyzerOutcome | null = null;
    if (!this.failed[i]) {
      try {
        this.spill.take(i, (page, value) => (this.seen[page]!.value = value));
        outcome = analyzer.finish(snapshot, this.seen);
      } catch (error) {
        this.fail(i, error);
      } finally {
        // Its values go as soon as it has finished, not when the next analyzer's replace them.
        for (const o of this.seen) o.value = undefined;
        releaseFinishGarbage();
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
