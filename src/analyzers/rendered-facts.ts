/**
 * What rendering a crawled page in the browser pool showed beside its HTML response (docs/analyzers.md,
 * SEO_CONTENT_NEEDS_JS): written by the crawl's rendering step, read by the analyzer. Links are
 * counted as the crawl reads them (src/crawl/page-links.ts), text as SEO_DUPLICATE_CONTENT's main text.
 */
export type RenderedFacts = RenderedPage | UnrenderablePage;

export interface RenderedPage {
  readonly status: 'rendered';
  /** Distinct URLs the page's `<a>`/`<area>` links point to in the HTML response. */
  readonly linksInResponse: number;
  /** The same once JavaScript has run. */
  readonly linksRendered: number;
  /** Rendered link URLs that the response does not have. */
  readonly linksOnlyRendered: number;
  /** Words of main text in the HTML response. */
  readonly wordsInResponse: number;
  /** The same once JavaScript has run. */
  readonly wordsRendered: number;
}

export interface UnrenderablePage {
  readonly status: 'unrenderable';
  /** Why, in plain words (a time-out, no browser worker in time, …). */
  readonly reason: string;
}

/**
 * The rendered-DOM checks of a page rendered with `render: "all"` (src/browser/stage-result.ts),
 * named here for the crawl, which stores them and does not know the browser stage.
 */
export type { RenderedChecks, RenderedPageChecks } from '../browser/stage-result';
