import { parseDocument } from 'htmlparser2';
import type { NameRuleId, RenderedPageChecks } from '../browser/stage-result';
import { truncate } from './parse';
import { elementSubject } from './subject';
import { EVIDENCE_MAX, MAX_ISSUES_PER_PAGE, pageIssues, type Issue, type PageResult } from './types';

/**
 * Control and image names on the rendered DOM (docs/analyzers.md, "Browser stage"): with
 * `render: "all"`, A11Y_IMG_ALT_MISSING and A11Y_CONTROL_NAME_MISSING are judged from axe's name
 * rules on every rendered page, so an alt a script adds counts and a name a script removes is
 * missed. Worded as the HTML analyzers word them (a11y-page.ts, a11y-forms.ts) and named as they
 * name elements, so a finding keeps its fingerprint whichever way the page was judged.
 */

export const RENDERED_NAME_CODES = ['A11Y_IMG_ALT_MISSING', 'A11Y_CONTROL_NAME_MISSING'] as const;
export type RenderedNameCode = (typeof RENDERED_NAME_CODES)[number];

const BUTTON = 'A button has no accessible name (no text, aria-label, title or image alt).';

/** Each analyzer's axe rules (the elements the HTML analyzer judges), with its message for a failing element. */
const RULES: Record<RenderedNameCode, Partial<Record<NameRuleId, string>>> = {
  A11Y_IMG_ALT_MISSING: {
    'image-alt': 'Image without an alt attribute.',
    'input-image-alt': 'Image button (input type="image") without alternative text.',
  },
  A11Y_CONTROL_NAME_MISSING: {
    'link-name': 'A link has no accessible name (no text, aria-label, title or image alt).',
    'button-name': BUTTON,
    'input-button-name': BUTTON,
  },
};

/**
 * One page's verdict: not applicable when none of the analyzer's rules found an element to judge
 * (as the HTML analyzer on a page without images or controls), else each failing element an issue.
 */
export function renderedNameCheck(code: RenderedNameCode): (p: RenderedPageChecks) => PageResult | null {
  const rules = RULES[code];
  return (p) => {
    if (!p.nameRulesApplied?.some((rule) => rule in rules)) return null;
    const issues: Issue[] = [];
    for (const v of p.violations)
      for (const node of v.nodes) {
        const message = rules[v.rule as NameRuleId];
        if (message === undefined || issues.length >= MAX_ISSUES_PER_PAGE) continue;
        issues.push({
          outcome: 'fail',
          message,
          evidence: truncate(node.html.trim() || node.selector, EVIDENCE_MAX),
          subject: openingTagSubject(node.html, p.url) ?? node.selector,
        });
      }
    return pageIssues(issues);
  };
}

/**
 * The element's subject as the HTML analyzers make it (subject.ts), from the opening tag the page
 * check quoted: an element without a name has no text of its own to add to it.
 */
function openingTagSubject(html: string, pageUrl: string): string | null {
  const el = parseDocument(html).children.find((n) => n.type === 'tag');
  return el && 'attribs' in el ? elementSubject(el, pageUrl) : null;
}
