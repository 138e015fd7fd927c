/** Arguments of CrawlWorkflow: one audit attempt's durable crawl (docs/architecture.md "Durable crawl"). */
export interface CrawlWorkflowInput {
  /** Names the crawl's stored state: one per audit run and attempt. */
  crawlId: string;
  auditId: string;
  /** Normalized origin, e.g. https://example.com */
  origin: string;
  pageBudget: number;
  /** Pages one step takes at most (CRAWL_STEP_PAGES). */
  stepPages: number;
  /** A step whose worker stops heartbeating this long is taken again by another worker. */
  heartbeatTimeoutMs: number;
  /** Steps one run starts before it continues as new (its history stays small). */
  stepsPerRun: number;
  /** Where the previous run of this crawl stopped (absent: a new crawl). */
  cursor?: CrawlCursor;
  /**
   * The audit's browser stage (present only when it has one): application shells are rendered on its
   * task queue, each step's waiting at most `timeoutMs` for a browser worker. `all` (`render: "all"`,
   * patch render-all): every HTML page is rendered and checked, not only the shells.
   */
  render?: { taskQueue: string; timeoutMs: number; all?: boolean };
}

/**
 * What a crawl carries over continue-as-new: the phase it is in and the next step's number. In the
 * `observe` phase (patch observe-parts) a step is a part of the pages observed by the analyzers, and
 * `crawled` is what the crawl found.
 */
export interface CrawlCursor {
  phase: 'pages' | 'sitemap-pages' | 'checks' | 'observe';
  nextStep: number;
  /** Steps in flight at once (the audit's per-host limit split between them; parts: OBSERVE_PARTS_IN_FLIGHT). */
  window: number;
  crawled?: CrawlSummary;
}

/** One step: its number is unique within the crawl, so a retry finds the pages it claimed. */
export interface CrawlStepInput {
  crawlId: string;
  auditId: string;
  step: number;
  stepPages: number;
  /** Application shells wait to be rendered (src/crawl/durable/page-step.ts). */
  renderShells?: boolean;
  /** Every HTML page waits to be rendered (`render: "all"`), shells among them. */
  renderAll?: boolean;
}

/** What a finished crawl reports to its audit. */
export interface CrawlSummary {
  pagesCrawled: number;
  pagesDiscovered: number;
}

export function crawlId(auditId: string, generation: number | undefined, attempt: number): string {
  return `${auditId}/${generation ?? 0}/${attempt}`;
}

/** The crawl of an audit run's attempt: a child of the audit's workflow. */
export function crawlWorkflowId(auditId: string, generation: number | undefined, attempt: number): string {
  return `${auditId}-crawl-${generation ?? 0}-${attempt}`;
}
