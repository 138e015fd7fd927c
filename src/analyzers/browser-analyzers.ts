import type { ConsoleError, MeasuredPage, RenderedPageChecks, RenderedRuleId } from '../browser/stage-result';
import type { AnalyzerCode } from './catalog';
import { LAB_CONTROL_POINTS, type LabMetricKey } from './lab-scoring';
import { truncate } from './parse';
import { plural } from './site-util';
import { resourceSubject } from './subject';
import {
  EVIDENCE_MAX,
  MAX_ISSUES_PER_PAGE,
  notApplicable,
  pageIssues,
  perPage,
  type AnalyzerOutcome,
  type FindingDraft,
  type Issue,
  type PageResult,
} from './types';

/**
 * The browser analyzers judged on a page's rendered DOM (its axe rules and console errors), as against
 * its lab metrics: with `render: "all"` they are judged on every rendered page (browser-rendered.ts).
 */
export const RENDERED_CHECK_CODES = [
  'A11Y_COLOR_CONTRAST',
  'A11Y_LINK_IN_TEXT_BLOCK',
  'A11Y_TARGET_SIZE',
  'BP_CONSOLE_ERRORS',
] as const satisfies readonly AnalyzerCode[];

/**
 * Analyzers of the browser stage (docs/analyzers.md, "Browser stage"): they judge what Chromium
 * measured on the sampled pages (src/browser/stage-result.ts) rather than the crawled HTML, so they
 * are not in the HTML registry (`ANALYZERS`); `mergeBrowserStage` runs them. Without a measured page
 * each is not_applicable.
 */
export const BROWSER_ANALYZER_CODES = [
  'PERF_LCP_SLOW',
  'PERF_CLS_HIGH',
  'PERF_TBT_HIGH',
  'PERF_FCP_SLOW',
  ...RENDERED_CHECK_CODES,
] as const satisfies readonly AnalyzerCode[];

export type BrowserAnalyzerCode = (typeof BROWSER_ANALYZER_CODES)[number];
/** Analyzers of the crawled HTML (the registry in index.ts). */
export type HtmlAnalyzerCode = Exclude<AnalyzerCode, BrowserAnalyzerCode>;

export function isBrowserAnalyzerCode(code: string): code is BrowserAnalyzerCode {
  return (BROWSER_ANALYZER_CODES as readonly string[]).includes(code);
}

// ── lab metrics ─────────────────────────────────────────────────────────────────────────────────

interface MetricRule {
  key: LabMetricKey;
  name: string;
  value: (p: MeasuredPage) => number;
  format: (v: number) => string;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const millis = (ms: number): string => `${Math.round(ms)} ms`;
const unitless = (v: number): string => v.toFixed(3);

/** Thresholds are Lighthouse's mobile control points: warn above "good", fail above "poor". */
const METRIC_RULES: Record<'PERF_LCP_SLOW' | 'PERF_CLS_HIGH' | 'PERF_TBT_HIGH' | 'PERF_FCP_SLOW', MetricRule> = {
  PERF_LCP_SLOW: { key: 'lcp', name: 'Largest Contentful Paint', value: (p) => p.metrics.lcpMs, format: seconds },
  PERF_CLS_HIGH: { key: 'cls', name: 'Cumulative Layout Shift', value: (p) => p.metrics.cls, format: unitless },
  PERF_TBT_HIGH: { key: 'tbt', name: 'Total Blocking Time', value: (p) => p.metrics.tbtMs, format: millis },
  PERF_FCP_SLOW: { key: 'fcp', name: 'First Contentful Paint', value: (p) => p.metrics.fcpMs, format: seconds },
};

/**
 * One finding per level (poor, needs improvement) naming every sampled page at that level, with each
 * page's value as evidence; score = share of pages at "good" (a warning counts half), as perPage.
 */
function metricOutcome(rule: MetricRule, pages: readonly MeasuredPage[]): AnalyzerOutcome {
  const { p10, median } = LAB_CONTROL_POINTS[rule.key];
  const poor = pages.filter((p) => rule.value(p) > median);
  const middling = pages.filter((p) => rule.value(p) > p10 && rule.value(p) <= median);
  const score = (pages.length - poor.length - middling.length / 2) / pages.length;
  const findings: FindingDraft[] = [];
  const finding = (group: MeasuredPage[], level: string, limit: number): void => {
    if (group.length === 0) return;
    const worst = Math.max(...group.map(rule.value));
    const share = `${group.length} of ${plural(pages.length, 'sampled page')}`;
    findings.push({
      message: `${rule.name} ${level} (over ${rule.format(limit)}) on ${share}; worst ${rule.format(worst)}.`,
      evidence: truncate(group.map((p) => `${p.url} ${rule.format(rule.value(p))}`).join('; '), EVIDENCE_MAX),
      urls: group.map((p) => p.url),
      subject: level,
    });
  };
  finding(poor, 'poor', median);
  finding(middling, 'needs improvement', p10);
  const status = poor.length > 0 ? 'fail' : middling.length > 0 ? 'warn' : 'pass';
  return { status, score, findings };
}

// ── rendered accessibility (axe-core) ────────────────────────────────────────────────────────────

const RULE_OF: Record<'A11Y_COLOR_CONTRAST' | 'A11Y_LINK_IN_TEXT_BLOCK' | 'A11Y_TARGET_SIZE', RenderedRuleId> = {
  A11Y_COLOR_CONTRAST: 'color-contrast',
  A11Y_LINK_IN_TEXT_BLOCK: 'link-in-text-block',
  A11Y_TARGET_SIZE: 'target-size',
};

/** One axe-core result, in the shape axe returns it (Lighthouse keeps `failureSummary` as `explanation`). */
export interface AxeResult {
  id: string;
  impact?: string | null;
  /** axe's one-line help of the rule, e.g. "Elements must meet minimum color contrast ratio thresholds". */
  help?: string;
  nodes: Array<{ html: string; failureSummary?: string; target: unknown[] }>;
}

/** axe's check messages without its "Fix any/all of the following:" headers and indentation. */
export function axeCheckMessages(failureSummary: string | undefined): string[] {
  return (failureSummary ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Fix (any|all) of the following:?$/i.test(line));
}

const num = (text: string, re: RegExp): string | undefined => re.exec(text)?.[1]?.trim();

/** Our own words for a failed check of the rules the stage maps, from the values in axe's message. */
const PLAIN: Record<string, { parse: (m: string) => string | null; fallback: string }> = {
  'color-contrast': {
    parse: (m) => {
      const ratio = num(m, /contrast of ([\d.]+)/);
      const need = num(m, /Expected contrast ratio of ([\d.]+)/);
      if (!ratio || !need) return null;
      const fg = num(m, /foreground color: ([^,)]+)/);
      const other = num(m, /background color: ([^,)]+)/) ?? num(m, /text-shadow color: ([^,)]+)/);
      const px = num(m, /font size: [^,]*?\(([\d.]+)px\)/);
      const colours = fg && other ? ` (${fg} on ${other}${px ? `, ${px} px text` : ''})` : '';
      return `Text is hard to read: it contrasts ${ratio}:1 with its background${colours}, and at least ${need}:1 is needed.`;
    },
    fallback: 'Text does not stand out enough from its background to be read easily.',
  },
  'link-in-text-block': {
    parse: (m) => {
      // "No styling (such as underline)": the fallback says it; a contrast message beside it is more precise.
      if (/no styling/.test(m)) return null;
      const ratio = num(m, /contrast of ([\d.]+)/);
      const need = num(m, /Minimum contrast is ([\d.]+)/);
      if (!ratio || !need) return null;
      const what = /background/.test(m) ? 'background' : 'colour';
      return `A link in a block of text differs from the words around it only by its ${what}, and too little (${ratio}:1 where ${need}:1 is needed); underline it or make it stand out more.`;
    },
    fallback:
      'A link in a block of text is told apart from the words around it by colour alone; underline it or mark it in another way.',
  },
  'target-size': {
    parse: (m) => {
      const size = /([\d.]+)px by ([\d.]+)px, should be at least ([\d.]+)px/.exec(m);
      if (size) {
        const covered = /obscured/.test(m) ? ', partly covered by another element,' : '';
        return `A tap target${covered} is ${size[1]} × ${size[2]} px; it needs at least ${size[3]} × ${size[3]} px, or more room around it, to be tapped reliably.`;
      }
      const space = /diameter of ([\d.]+)px instead of at least ([\d.]+)px/.exec(m);
      if (space)
        return `A tap target is too close to its neighbours: it has ${space[1]} px of clear space where ${space[2]} px are needed, so a finger easily hits the wrong one.`;
      return null;
    },
    fallback: 'A tap target is too small or too close to its neighbours to be tapped reliably on a phone.',
  },
};

/** A plain message for one failing element: the rule's own wording, else axe's help without its boilerplate. */
export function plainAxeMessage(result: Pick<AxeResult, 'id' | 'help'>, failureSummary?: string): string {
  const checks = axeCheckMessages(failureSummary);
  const plain = PLAIN[result.id];
  if (plain) return checks.map(plain.parse).find((m) => m !== null) ?? plain.fallback;
  const help = (result.help ?? '').trim() || checks[0] || `The page fails the accessibility rule "${result.id}"`;
  return /[.!?]$/.test(help) ? help : `${help}.`;
}

/**
 * Each failing element is an issue: our message for the rule, the element's HTML as evidence, and
 * axe's selector as subject, so an element of the shared layout failing on every sampled page is one
 * finding naming all those pages.
 */
export function axeIssues(result: AxeResult, max = MAX_ISSUES_PER_PAGE): Issue[] {
  return result.nodes.slice(0, max).map((node) => {
    const selector = node.target.flat(Infinity).map(String).join(' ');
    return {
      outcome: 'fail',
      message: plainAxeMessage(result, node.failureSummary),
      evidence: truncate(node.html.trim() || selector || `(an element failing ${result.id})`, EVIDENCE_MAX),
      // axe's selector is the element's identity (from the markup), the same on every page of a layout.
      subject: selector,
    };
  });
}

function renderedRuleCheck(rule: RenderedRuleId): (p: RenderedPageChecks) => PageResult {
  return (p) => {
    const nodes = p.violations
      .filter((v) => v.rule === rule)
      .flatMap((v) => v.nodes.map((n) => ({ html: n.html, failureSummary: n.message, target: [n.selector] })));
    return pageIssues(axeIssues({ id: rule, nodes }));
  };
}

// ── console errors ───────────────────────────────────────────────────────────────────────────────

const SOURCE_LABEL: Record<ConsoleError['source'], string> = {
  exception: 'Uncaught JavaScript exception',
  console: 'Error logged to the console',
  network: 'Failed request logged as an error',
};

function consoleErrorCheck(p: RenderedPageChecks): PageResult {
  const issues: Issue[] = [];
  for (const e of p.consoleErrors) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    const text = e.text.trim() || '(no message)';
    issues.push({
      outcome: 'fail',
      message: `${SOURCE_LABEL[e.source]} while the page loaded.`,
      evidence: truncate(e.url ? `${text} (${e.url})` : text, EVIDENCE_MAX),
      // The error as the site raised it (its kind, where, what), never this analyzer's wording.
      subject: [e.source, e.url ? resourceSubject(e.url, p.url) : '', text.slice(0, 120)].filter(Boolean).join(' '),
    });
  }
  return pageIssues(issues);
}

export type RenderedCheckCode = (typeof RENDERED_CHECK_CODES)[number];

/** One page's verdict for a rendered-DOM analyzer, a sampled page's or a crawled one's alike. */
export function renderedPageCheck(code: RenderedCheckCode): (p: RenderedPageChecks) => PageResult {
  return code === 'BP_CONSOLE_ERRORS' ? consoleErrorCheck : renderedRuleCheck(RULE_OF[code]);
}

/** Every browser analyzer's outcome on the measured pages (none measured: all not_applicable). */
export function runBrowserAnalyzers(pages: readonly MeasuredPage[]): Map<BrowserAnalyzerCode, AnalyzerOutcome> {
  const out = new Map<BrowserAnalyzerCode, AnalyzerOutcome>();
  const rendered = new Set<string>(RENDERED_CHECK_CODES);
  for (const code of BROWSER_ANALYZER_CODES) {
    if (pages.length === 0) out.set(code, notApplicable());
    else if (rendered.has(code)) out.set(code, perPage(pages, renderedPageCheck(code as RenderedCheckCode)));
    else out.set(code, metricOutcome(METRIC_RULES[code as keyof typeof METRIC_RULES], pages));
  }
  return out;
}
