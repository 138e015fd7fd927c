import type { Element } from 'domhandler';
import { ariaElements, explicitRole } from './a11y-aria';
import { pageCss } from './page-css';
import { attr, hasAncestor, snippet, type ParsedPage } from './parse';
import { elementSubject } from './subject';
import { MAX_ISSUES_PER_PAGE, pageAnalyzer, pageIssues, type Issue } from './types';

/**
 * A11Y_HEADING_ORDER, as axe-core's heading-order: in document order, a heading may go at most one
 * level deeper than the heading before it (h2 → h4 skips a level; going back up any number of levels
 * is fine, and the first heading may have any level). Headings are h1–h6 and `role="heading"`
 * elements; an explicit role other than heading (`<h2 role="tab">`, `role="presentation"`) makes an
 * h1–h6 not a heading, and a valid `aria-level` overrides the tag's level (role=heading without it is
 * level 2). Headings hidden by the page's markup or CSS are skipped, as axe skips what screen readers
 * do not see, and so is inert `<template>` content.
 */

const TAG_LEVEL = /^h([1-6])$/;

/** The heading level axe would give the element, or null when it is not a heading. */
export function headingLevel(el: Element): number | null {
  const tag = TAG_LEVEL.exec(el.name);
  // A valid explicit role replaces the implicit one; an invalid role attribute is ignored.
  const role = explicitRole(el) ?? (tag ? 'heading' : null);
  if (role !== 'heading') return null;
  const ariaLevel = parseInt((attr(el, 'aria-level') ?? '').trim(), 10);
  if (Number.isNaN(ariaLevel) || ariaLevel < 1) return tag ? Number(tag[1]) : 2;
  return ariaLevel;
}

/** h1–h6 from the page's tag index and elements with a role, merged back into document order. */
function headingCandidates(p: ParsedPage): Element[] {
  const tagged = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].flatMap((t) => p.elements(t));
  const roled = ariaElements(p).filter((el) => attr(el, 'role') !== undefined && !TAG_LEVEL.test(el.name));
  return [...tagged, ...roled].sort((a, b) => (a.startIndex ?? 0) - (b.startIndex ?? 0));
}

export const headingOrder = pageAnalyzer('A11Y_HEADING_ORDER', (p) => {
  if (!p.isHtml || !p.doc) return null;
  const css = pageCss(p);
  const headings: { el: Element; level: number }[] = [];
  for (const el of headingCandidates(p)) {
    const level = headingLevel(el);
    if (level === null || css.isHidden(el) || hasAncestor(el, 'template')) continue;
    headings.push({ el, level });
  }
  if (headings.length === 0) return null; // nothing to order
  const issues: Issue[] = [];
  for (let i = 1; i < headings.length && issues.length < MAX_ISSUES_PER_PAGE; i++) {
    const prev = headings[i - 1]!.level;
    const cur = headings[i]!.level;
    if (cur - prev > 1)
      issues.push({
        outcome: 'fail',
        message: `Heading level skipped: a level ${cur} heading follows a level ${prev} heading.`,
        evidence: snippet(p, headings[i]!.el),
        // The heading itself (its level and words), not the level it follows: fixing one skip keeps the others'.
        subject: elementSubject(headings[i]!.el, p.url),
      });
  }
  return pageIssues(issues);
});
