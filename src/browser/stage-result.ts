/**
 * What the browser stage measured on an audit's sampled pages (docs/analyzers.md, "Browser stage"):
 * the contract between the browser worker that renders pages and the analyzers and scoring that
 * turn the measurements into findings. Plain data: it crosses a Temporal activity boundary.
 */
export interface BrowserStageResult {
  /** Sampled pages in sampling order (home page first, then the most-linked pages). */
  pages: BrowserPageResult[];
  /** Wall time of the whole stage. */
  durationMs: number;
}

export type BrowserPageResult = MeasuredPage | UnrenderablePage;

export interface MeasuredPage {
  url: string;
  status: 'measured';
  /** Lighthouse lab metrics (mobile emulation, simulated throttling). */
  metrics: LabMetrics;
  /** Rendered accessibility violations (axe-core), only for the rules the stage reports. */
  violations: RenderedViolation[];
  /** JavaScript errors logged while the page loaded (exceptions and console.error). */
  consoleErrors: ConsoleError[];
  /** Time spent on this page by the stage. */
  durationMs: number;
}

export interface UnrenderablePage {
  url: string;
  status: 'unrenderable';
  /** Why it could not be rendered, in plain words (time-out, refused by the outbound policy, …). */
  reason: string;
}

export interface LabMetrics {
  fcpMs: number;
  lcpMs: number;
  /** Unitless Cumulative Layout Shift. */
  cls: number;
  tbtMs: number;
  speedIndexMs: number;
}

/** axe's rules for control and image names: run on every page with `render: "all"` only, never in the sample. */
export type NameRuleId = 'image-alt' | 'input-image-alt' | 'link-name' | 'button-name' | 'input-button-name';
export type RenderedRuleId = 'color-contrast' | 'link-in-text-block' | 'target-size' | NameRuleId;

export interface RenderedViolation {
  rule: RenderedRuleId;
  /** One entry per failing element: a CSS selector and a short HTML excerpt. */
  nodes: { selector: string; html: string; message: string }[];
}

export interface ConsoleError {
  /** `exception` (uncaught), `console` (console.error) or `network` (failed request logged as error). */
  source: 'exception' | 'console' | 'network';
  text: string;
  url?: string;
}

/**
 * The rendered-DOM checks of one page the crawl rendered with `render: "all"` (docs/analyzers.md,
 * "Browser stage"): what the stage's axe rules and console reading found there, every page judged
 * as a sampled page is (src/browser/dom-checks.ts). Stored per page in Postgres until the analysis.
 */
export interface RenderedChecks {
  violations: RenderedViolation[];
  /**
   * The name rules that found an element to judge on the page (a page without images has nothing to
   * name). Absent on checks stored before the crawl ran the name rules.
   */
  nameRulesApplied?: NameRuleId[];
  consoleErrors: ConsoleError[];
}

/** A page's rendered-DOM checks as stored and analysed: named by the page's final URL, as the analyzers name pages. */
export interface RenderedPageChecks extends RenderedChecks {
  url: string;
}
