import { AnalysisRun, type AnalysisResult, type RunOptions } from './analysis-run';
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
import type { ObservedPart } from './observed-part';
import { stylesheetTexts } from './parse';
import { PERFORMANCE_PAGE_ANALYZERS } from './performance-page';
import { SECURITY_HEADER_ANALYZERS } from './security-headers';
import { SECURITY_CONTENT_ANALYZERS } from './security-content';
import { SECURITY_TRANSPORT_ANALYZERS } from './security-transport';
import { DNS_EMAIL_ANALYZERS } from './dns-email';
import { SEO_PAGE_ANALYZERS } from './seo-page';
import type { CrawlSnapshot } from './snapshot';
import type { Analyzer } from './types';

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

export type { AnalysisResult, RunOptions } from './analysis-run';

/**
 * Page by page: each page is parsed once, every analyzer observes it, and its tree is dropped before
 * the next page, so memory stays bounded by one DOM plus the analyzers' small observations.
 */
export function runAnalyzers(snapshot: CrawlSnapshot, options: RunOptions = {}): AnalysisResult {
  const run = new AnalysisRun(options.analyzers ?? ANALYZERS, options, stylesheetTexts(snapshot));
  try {
    for (const page of snapshot.pages) run.observe(page);
  } catch (error) {
    run.close();
    throw error;
  }
  return run.finish(snapshot);
}

/**
 * The same analysis, giving the event loop back every `sliceMs` of work: a worker analysing a large
 * site keeps sending its activity heartbeats, so it is never mistaken for a lost worker.
 */
export async function runAnalyzersInSlices(
  snapshot: CrawlSnapshot,
  options: SliceOptions = {},
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
export function runAnalyzersOverBodies(
  snapshot: CrawlSnapshot,
  bodies: AsyncIterable<string | null>,
  options: SliceOptions = {},
): Promise<AnalysisResult> {
  return runAnalyzersOverParts(snapshot, onePart(bodies), options);
}

/** Every page's body as one part, observed by the analysis itself. */
export async function* onePart(bodies: AsyncIterable<string | null>): AsyncGenerator<PagePart> {
  yield { bodies };
}

type SliceOptions = RunOptions & { sliceMs?: number; onSlice?: (pagesDone: number) => void };

/**
 * The snapshot's pages in order, a part at a time: observed beforehand (on any worker; docs/architecture.md,
 * "Analysis in parts"), or as bodies to observe here, the parts' pages in the snapshot's order.
 */
export type PagePart = { observed: ObservedPart } | { bodies: AsyncIterable<string | null> };

/** The analysis over parts: a part observed beforehand is taken as it is, the others observed here. */
export async function runAnalyzersOverParts(
  snapshot: CrawlSnapshot,
  parts: AsyncIterable<PagePart>,
  options: SliceOptions = {},
): Promise<AnalysisResult> {
  const sliceMs = options.sliceMs ?? 50;
  const run = new AnalysisRun(options.analyzers ?? ANALYZERS, options, stylesheetTexts(snapshot));
  let sliceStart = performance.now();
  let index = 0;
  const slice = async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    options.onSlice?.(index);
    await new Promise((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };
  try {
    for await (const part of parts) {
      if ('observed' in part) {
        const kept = snapshot.pages.slice(index, index + part.observed.html.length);
        run.addObserved(part.observed, kept);
        index += kept.length;
        await slice();
        continue;
      }
      for await (const body of part.bodies) {
        const kept = snapshot.pages[index++];
        if (!kept) break;
        run.observe({ ...kept, body }, kept);
        await slice();
      }
    }
  } catch (error) {
    run.close();
    throw error;
  }
  return run.finishInSlices(snapshot, sliceMs, () => options.onSlice?.(index));
}
