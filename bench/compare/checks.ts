/**
 * The checks we compare with Lighthouse: each pairs Lighthouse audit ids with one of our analyzer codes
 * (the "Anchor" column of docs/analyzers.md) and says how each side's verdict on one page is read.
 * Pure data and functions, so the mapping and the arithmetic are unit tested
 * (test/unit/compare-lighthouse.test.ts) apart from the Chromium runs.
 */

/** A page's verdict on one check. `fail` is the positive class: a problem found. */
export type Verdict = 'pass' | 'fail' | 'na';

/** What we need of a Lighthouse audit result (LH.Audit.Result). */
export interface LhAudit {
  score: number | null;
  scoreDisplayMode: string;
  errorMessage?: string;
  /** Rows of the audit's details table (failing elements, logged errors). */
  items?: number;
  /** URLs of the rows, where they have one (errors-in-console: the resource that failed). */
  itemUrls?: string[];
}

/** What we need of one of our findings (src/schemas/audit Finding). */
export interface OurFinding {
  analyzer: string;
  severity: string;
  message: string;
  evidence: string;
  urls: readonly string[];
}

export interface Check {
  /** Row label: the Lighthouse audit ids joined by `+`. */
  id: string;
  /** Lighthouse audits; the page fails the check when any of them fails. */
  lighthouse: readonly string[];
  /** Our analyzer codes; the page fails when a finding of any of them names it. */
  ours: readonly string[];
  /** Which of our findings belong to this check (default: every finding of `ours`). */
  matches?: (f: OurFinding) => boolean;
  /** The pages a finding of ours fails (default: every URL it names). */
  pagesOf?: (f: OurFinding) => readonly string[];
  /**
   * `page`: a finding fails the pages its urls name. `site`: Lighthouse judges the origin (robots.txt),
   * so any finding of ours fails every page of the site.
   */
  scope: 'page' | 'site';
  /**
   * Judged on error pages too. Our page checks read only pages answering 2xx (an error page is not
   * indexed, and its content is not the site's); Lighthouse, told to ignore the status code, judges
   * a 404 page's content like any other. So only the status check itself is compared there.
   */
  errorPages?: boolean;
  /** Judged by our browser stage, which renders only the audit's sample of pages. */
  browserStage?: boolean;
  /**
   * Lighthouse lists the failing elements but does not score the audit (informative): a listed
   * element is its failure.
   */
  informative?: boolean;
}

const messageHas =
  (re: RegExp) =>
  (f: OurFinding): boolean =>
    re.test(f.message);

export const CHECKS: readonly Check[] = [
  { id: 'document-title', lighthouse: ['document-title'], ours: ['SEO_TITLE_MISSING'], scope: 'page' },
  {
    id: 'meta-description',
    lighthouse: ['meta-description'],
    ours: ['SEO_META_DESC_MISSING'],
    // Ours also reports descriptions shared by several pages; Lighthouse judges one page at a time.
    matches: messageHas(/no meta description|description is empty/i),
    scope: 'page',
  },
  {
    id: 'http-status-code',
    lighthouse: ['http-status-code'],
    // One broken URL, one problem (docs/analyzers.md "Accuracy rules"): an error page that crawled pages
    // link to is reported by SEO_BROKEN_LINK, whose first URL is the broken one, then the pages linking to it.
    ours: ['SEO_HTTP_STATUS_ERROR', 'SEO_BROKEN_LINK'],
    pagesOf: (f) => (f.analyzer === 'SEO_BROKEN_LINK' ? f.urls.slice(0, 1) : f.urls),
    scope: 'page',
    errorPages: true,
  },
  { id: 'link-text', lighthouse: ['link-text'], ours: ['SEO_LINK_TEXT_GENERIC'], scope: 'page' },
  { id: 'crawlable-anchors', lighthouse: ['crawlable-anchors'], ours: ['SEO_ANCHOR_NOT_CRAWLABLE'], scope: 'page' },
  { id: 'is-crawlable', lighthouse: ['is-crawlable'], ours: ['SEO_NOINDEX', 'SEO_ROBOTS_BLOCKED'], scope: 'page' },
  { id: 'robots-txt', lighthouse: ['robots-txt'], ours: ['SEO_ROBOTS_TXT_INVALID'], scope: 'site' },
  {
    id: 'hreflang',
    lighthouse: ['hreflang'],
    ours: ['SEO_HREFLANG_INVALID'],
    // Lighthouse judges each link's language code and whether its href is fully qualified, on one page;
    // whether the alternate links back is a question only a crawl of both pages answers.
    matches: (f) => !/does not link back to this page/.test(f.message),
    scope: 'page',
  },
  {
    id: 'canonical',
    lighthouse: ['canonical'],
    ours: ['SEO_CANONICAL_INVALID'],
    // Lighthouse judges the declared link's form (invalid, relative, conflicting, the home page, another
    // language's page) and never requests the canonical URL. Two of ours are other questions: a page
    // served under two URLs without a canonical link (found by crawling both), and a canonical URL
    // that redirects or fails (found by requesting it).
    matches: (f) => !/also linked under a second URL|^The canonical URL (redirects|answers HTTP)/.test(f.message),
    scope: 'page',
  },
  {
    id: 'image-alt+input-image-alt',
    lighthouse: ['image-alt', 'input-image-alt'],
    ours: ['A11Y_IMG_ALT_MISSING'],
    scope: 'page',
  },
  { id: 'label+select-name', lighthouse: ['label', 'select-name'], ours: ['A11Y_FORM_LABEL_MISSING'], scope: 'page' },
  {
    id: 'link-name',
    lighthouse: ['link-name'],
    ours: ['A11Y_CONTROL_NAME_MISSING'],
    matches: messageHas(/^A link /),
    scope: 'page',
  },
  {
    id: 'button-name',
    lighthouse: ['button-name'],
    ours: ['A11Y_CONTROL_NAME_MISSING'],
    matches: messageHas(/^A button /),
    scope: 'page',
  },
  {
    id: 'html-has-lang+html-lang-valid',
    lighthouse: ['html-has-lang', 'html-lang-valid'],
    ours: ['A11Y_LANG_INVALID'],
    scope: 'page',
  },
  { id: 'meta-viewport', lighthouse: ['meta-viewport'], ours: ['A11Y_ZOOM_DISABLED'], scope: 'page' },
  {
    id: 'duplicate-id-aria',
    lighthouse: ['duplicate-id-aria'],
    ours: ['A11Y_DUPLICATE_ID_ARIA'],
    scope: 'page',
    informative: true,
  },
  // Lighthouse 13 judges the viewport in its performance insights.
  { id: 'viewport', lighthouse: ['viewport-insight'], ours: ['BP_VIEWPORT_MISSING'], scope: 'page' },
  {
    id: 'doctype',
    lighthouse: ['doctype'],
    ours: ['BP_DOCTYPE_CHARSET'],
    // Lighthouse fails quirks and limited-quirks doctypes; our legacy-doctype warning is not such a failure.
    matches: (f) => /doctype/i.test(f.message) && !/legacy doctype/i.test(f.message),
    scope: 'page',
  },
  {
    id: 'charset',
    lighthouse: ['charset'],
    ours: ['BP_DOCTYPE_CHARSET'],
    matches: messageHas(/encoding/i),
    scope: 'page',
  },
  { id: 'unsized-images', lighthouse: ['unsized-images'], ours: ['PERF_IMG_UNSIZED'], scope: 'page' },
  // Browser-stage and ARIA analyzers (docs/analyzers.md "Browser stage"): compared once they run.
  {
    id: 'color-contrast',
    lighthouse: ['color-contrast'],
    ours: ['A11Y_COLOR_CONTRAST'],
    scope: 'page',
    browserStage: true,
  },
  {
    id: 'link-in-text-block',
    lighthouse: ['link-in-text-block'],
    ours: ['A11Y_LINK_IN_TEXT_BLOCK'],
    scope: 'page',
    browserStage: true,
  },
  { id: 'target-size', lighthouse: ['target-size'], ours: ['A11Y_TARGET_SIZE'], scope: 'page', browserStage: true },
  { id: 'heading-order', lighthouse: ['heading-order'], ours: ['A11Y_HEADING_ORDER'], scope: 'page' },
  {
    id: 'aria-* (required-attr, valid-attr(-value), roles, dialog-name)',
    lighthouse: ['aria-required-attr', 'aria-valid-attr-value', 'aria-valid-attr', 'aria-roles', 'aria-dialog-name'],
    ours: ['A11Y_ARIA_INVALID'],
    scope: 'page',
  },
  {
    id: 'errors-in-console',
    lighthouse: ['errors-in-console'],
    ours: ['BP_CONSOLE_ERRORS'],
    scope: 'page',
    browserStage: true,
  },
];

/**
 * Lighthouse's verdict on one page: `na` when none of the audits applies (not applicable, manual,
 * informative, or it errored); otherwise `fail` when any applicable audit scores below 0.9 (the
 * threshold at which Lighthouse shows an audit as passed), or for an `informative` check lists an
 * element.
 */
export function lighthouseVerdict(check: Check, audits: Readonly<Record<string, LhAudit | undefined>>): Verdict {
  let verdict: Verdict = 'na';
  for (const id of check.lighthouse) {
    const a = audits[id];
    if (!a || a.errorMessage) continue;
    if (check.informative && a.scoreDisplayMode === 'informative') {
      if ((a.items ?? 0) > 0) return 'fail';
      verdict = 'pass';
      continue;
    }
    if (a.score === null || !['binary', 'numeric', 'metricSavings'].includes(a.scoreDisplayMode)) continue;
    if (a.score < 0.9) return 'fail';
    verdict = 'pass';
  }
  return verdict;
}

/**
 * Our verdict on one page: `fail` when a finding of the check's analyzers (severity above info: an
 * info-level note is not a failure) names the page — or, for site-scope checks, exists at all.
 * `na` when none of them was run (`statuses`: analyzer code → status in our audit), or the page
 * answered an error and the check does not judge error pages, or the check is the browser stage's
 * and the stage did not measure the page.
 */
export function ourVerdict(
  check: Check,
  page: { url: string; finalUrl: string; status: number; rendered?: boolean },
  findings: readonly OurFinding[],
  statuses: Readonly<Record<string, string | undefined>>,
): Verdict {
  if ((page.status < 200 || page.status > 299) && !check.errorPages) return 'na';
  if (check.browserStage && !page.rendered) return 'na';
  const run = check.ours.filter((code) => statuses[code] !== undefined && statuses[code] !== 'error');
  if (run.length === 0) return 'na';
  const mine = findings.filter(
    (f) => run.includes(f.analyzer) && f.severity !== 'info' && (check.matches ? check.matches(f) : true),
  );
  if (check.scope === 'site') {
    if (mine.length > 0) return 'fail';
    return run.every((code) => statuses[code] === 'not_applicable') ? 'na' : 'pass';
  }
  const named = mine.some((f) => {
    const urls = check.pagesOf ? check.pagesOf(f) : f.urls;
    return urls.includes(page.url) || urls.includes(page.finalUrl);
  });
  return named ? 'fail' : 'pass';
}
