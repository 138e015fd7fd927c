import type { ConsoleError, MeasuredPage, RenderedRuleId } from '../browser/stage-result';
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
  'A11Y_COLOR_CONTRAST',
  'A11Y_LINK_IN_TEXT_BLOCK',
  'A11Y_TARGET_SIZE',
  'BP_CONSOLE_ERRORS',
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

/**
 * Each failing element is an issue (selector and excerpt as evidence, axe's message), so an element
 * of the shared layout failing on every sampled page is one finding naming all those pages.
 */
function renderedRuleCheck(rule: RenderedRuleId): (p: MeasuredPage) => PageResult {
  return (p) => {
    const issues: Issue[] = [];
    for (const violation of p.violations) {
      if (violation.rule !== rule) continue;
      for (const node of violation.nodes) {
        if (issues.length >= MAX_ISSUES_PER_PAGE) break;
        issues.push({
          outcome: 'fail',
          message: node.message.trim() || `Fails axe-core rule ${rule}.`,
          evidence: truncate(`${node.selector}: ${node.html}`, EVIDENCE_MAX),
          // axe's selector is the element's identity (from the markup), the same on every page of a layout.
          subject: node.selector,
        });
      }
    }
    return pageIssues(issues);
  };
}

// ── console errors ───────────────────────────────────────────────────────────────────────────────

const SOURCE_LABEL: Record<ConsoleError['source'], string> = {
  exception: 'Uncaught JavaScript exception',
  console: 'Error logged to the console',
  network: 'Failed request logged as an error',
};

function consoleErrorCheck(p: MeasuredPage): PageResult {
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

/** Every browser analyzer's outcome on the measured pages (none measured: all not_applicable). */
export function runBrowserAnalyzers(pages: readonly MeasuredPage[]): Map<BrowserAnalyzerCode, AnalyzerOutcome> {
  const out = new Map<BrowserAnalyzerCode, AnalyzerOutcome>();
  for (const code of BROWSER_ANALYZER_CODES) {
    if (pages.length === 0) out.set(code, notApplicable());
    else if (code === 'BP_CONSOLE_ERRORS') out.set(code, perPage(pages, consoleErrorCheck));
    else if (code in RULE_OF) out.set(code, perPage(pages, renderedRuleCheck(RULE_OF[code as keyof typeof RULE_OF])));
    else out.set(code, metricOutcome(METRIC_RULES[code as keyof typeof METRIC_RULES], pages));
  }
  return out;
}
