import { textContent } from 'domutils';
import { isTag, type Element } from 'domhandler';
import { isContentPage } from './client-redirect';
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
  if (!isContentPage(p)) return null;
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

/** Attributes that only mean something on a link: an anchor carrying one is meant as a link (HTML spec). */
const HREF_ASSOCIATED = ['target', 'download', 'ping', 'rel', 'hreflang', 'type', 'referrerpolicy'];

/** Lighthouse's `javascript:void(0)` pattern, matched on the href with all whitespace removed. */
const JAVASCRIPT_VOID = /javascript:void(\(|)0(\)|)/;

/** An inline event handler (onclick, onmousedown…): the anchor does something by script. */
function hasHandler(a: Element): boolean {
  return Object.keys(a.attribs).some((name) => /^on[a-z]+$/.test(name));
}

/** An `<a>` of SVG (inside `<svg>`, not back in HTML through `<foreignObject>`). */
function isSvgAnchor(a: Element): boolean {
  for (let p = a.parent; p; p = p.parent) {
    if (!isTag(p)) continue;
    if (p.name === 'svg') return true;
    if (p.name.toLowerCase() === 'foreignobject') return false;
  }
  return false;
}

/** Whether `href` parses as a URL against the page, as the browser's URL parser does. */
function parses(href: string, base: string): boolean {
  try {
    new URL(href, base);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why an anchor cannot be followed by a crawler, or null when it passes. Lighthouse's
 * crawlable-anchors decision, branch by branch, on the raw href with all whitespace removed:
 * any `role` passes (`role=button` toggles); `mailto:` passes; no href with an `id` passes (a jump
 * target); `file:` fails; a `name` passes; no href and no link-only attribute (`target`, `rel`…)
 * fails only with an event handler (we see inline `on…` attributes, not listeners added by
 * script); a link-only attribute without an href fails; `javascript:void(0)` and its spellings
 * fail; an href the URL parser rejects fails. Everything else passes: `href=""` (the same page),
 * `#`, `javascript:;`, `javascript:toggle()`.
 */
export function anchorProblem(a: Element, pageUrl: string): string | null {
  if (hasAncestor(a, 'template')) return null; // inert content: not in the document Lighthouse reads
  const raw = (attr(a, 'href') ?? '').replace(/\s/g, '');
  if ((attr(a, 'role') ?? '').trim() !== '') return null;
  if (raw.startsWith('mailto:')) return null;
  if (raw === '' && (attr(a, 'id') ?? '') !== '') return null;
  if (raw.startsWith('file:')) return 'points to a file: URL on a local disk';
  const svg = isSvgAnchor(a);
  if (!svg && (attr(a, 'name') ?? '').trim() !== '') return null;
  const names = Object.keys(a.attribs);
  if (!names.includes('href') && !HREF_ASSOCIATED.some((n) => names.includes(n)))
    return hasHandler(a) ? 'has no href and works by script' : null;
  // The browser's resolved href is empty only for an HTML anchor without href (SVG resolves "" to the page).
  if (!svg && !names.includes('href')) return 'has link attributes but no href';
  if (JAVASCRIPT_VOID.test(raw)) return 'uses a javascript: URL';
  if (!parses(raw, pageUrl)) return 'has an href that is not a valid URL';
  return null;
}

export const anchorNotCrawlable = pageAnalyzer('SEO_ANCHOR_NOT_CRAWLABLE', (p) => {
  if (!p.isHtml) return null;
  const anchors = p.elements('a');
  if (anchors.length === 0) return null;
  const issues: Issue[] = [];
  for (const a of anchors) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    const problem = anchorProblem(a, p.url);
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
