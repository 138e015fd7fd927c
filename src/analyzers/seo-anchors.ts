import { textContent } from 'domutils';
import type { Element } from 'domhandler';
import { GENERIC_LINK_TEXTS } from './generic-link-texts';
import { attr, hasAncestor, snippet } from './parse';
import { elementSubject } from './subject';
import { MAX_ISSUES_PER_PAGE, pageAnalyzer, pageIssues, type Issue } from './types';

/** SEO checks of <a> anchors: generic link texts and links crawlers cannot follow. */

// ── SEO_LINK_TEXT_GENERIC ────────────────────────────────────────────────────────────────────────

/** Lower-cased, whitespace collapsed, surrounding punctuation and arrows ("Read more »", "here.") removed. */
export function normalizeLinkText(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
}

function isNavigableHref(href: string | undefined): href is string {
  if (href === undefined) return false;
  const h = href.trim();
  return h !== '' && !h.startsWith('#') && !/^javascript:/i.test(h);
}

export const linkTextGeneric = pageAnalyzer('SEO_LINK_TEXT_GENERIC', (p) => {
  if (!p.isHtml) return null;
  const issues: Issue[] = [];
  let links = 0;
  for (const a of p.elements('a')) {
    if (!isNavigableHref(attr(a, 'href'))) continue;
    links++;
    if (issues.length >= MAX_ISSUES_PER_PAGE) continue;
    const label = (attr(a, 'aria-label') ?? '').trim();
    const text = normalizeLinkText(label !== '' ? label : textContent(a));
    if (GENERIC_LINK_TEXTS.has(text))
      issues.push({
        outcome: 'fail',
        message: `A link's text is just "${text}", which does not say where it leads.`,
        evidence: snippet(p, a),
        // The link's words and target: the same generic link in the shared layout is one finding.
        subject: elementSubject(a, p.url),
      });
  }
  if (links === 0) return null;
  return pageIssues(issues);
});

// ── SEO_ANCHOR_NOT_CRAWLABLE ─────────────────────────────────────────────────────────────────────

/** Roles that declare the anchor is not a link (Lighthouse crawlable-anchors ignores them). */
const NON_LINK_ROLES =
  /^(button|tab|menuitem|menuitemcheckbox|menuitemradio|option|switch|checkbox|radio|treeitem|presentation|none)$/;

/** An inline event handler (onclick, onmousedown…): the anchor does something by script. */
function hasHandler(a: Element): boolean {
  return Object.keys(a.attribs).some((name) => /^on[a-z]+$/.test(name));
}

/**
 * Why an anchor cannot be followed by a crawler, or null when it is fine (or not meant as a link).
 * Follows Lighthouse's crawlable-anchors: `javascript:` URLs (`javascript:void(0)` and the like) and
 * empty hrefs fail; an anchor without href fails only when a handler makes it act as a link; an
 * anchor with a role (a `role=button` toggle), a name or a mailto: URL is not judged.
 */
function anchorProblem(a: Element): string | null {
  if (hasAncestor(a, 'svg')) return null;
  const role = (attr(a, 'role') ?? '').trim().toLowerCase();
  if (NON_LINK_ROLES.test(role)) return null;
  const href = attr(a, 'href');
  if (href === undefined) {
    if (attr(a, 'name') !== undefined) return null; // a named jump target, not a link
    return hasHandler(a) ? 'has no href and works by script' : null;
  }
  const h = href.replace(/\s/g, '');
  if (/^mailto:/i.test(h)) return null;
  if (/^javascript:/i.test(h)) return 'uses a javascript: URL';
  if (h === '') return 'has an empty href';
  if (h === '#' && /window\.(location|open)\b|location\.href\s*=/.test(attr(a, 'onclick') ?? ''))
    return 'navigates with a script instead of an href';
  return null;
}

export const anchorNotCrawlable = pageAnalyzer('SEO_ANCHOR_NOT_CRAWLABLE', (p) => {
  if (!p.isHtml) return null;
  const anchors = p.elements('a');
  if (anchors.length === 0) return null;
  const issues: Issue[] = [];
  for (const a of anchors) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    const problem = anchorProblem(a);
    if (problem)
      issues.push({
        outcome: 'fail',
        message: `A link ${problem}, so crawlers cannot follow it.`,
        evidence: snippet(p, a),
        subject: elementSubject(a, p.url),
      });
  }
  return pageIssues(issues);
});
