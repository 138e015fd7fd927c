import type { Element } from 'domhandler';
import { pageCss } from './page-css';
import { elementSubject } from './subject';
import { attr, metaNamed, snippet, startTag, truncate, type ParsedPage } from './parse';
import {
  EVIDENCE_MAX,
  MAX_ISSUES_PER_PAGE,
  PAGE_PASS,
  pageAnalyzer,
  pageFail,
  pageIssues,
  type Analyzer,
  type Issue,
} from './types';

/** Accessibility checks that need only the markup (no rendering, so no contrast or focus checks). */

// ── A11Y_LANG_INVALID ────────────────────────────────────────────────────────────────────────────

/**
 * BCP 47-ish, as screen readers need it: a 2–3 letter primary language subtag, and a tag that is
 * well-formed as a Unicode locale identifier (Intl rejects "en_US", "english-", "123").
 */
export function isValidLangTag(tag: string): boolean {
  if (!/^[A-Za-z]{2,3}(?:-|$)/.test(tag)) return false;
  try {
    Intl.getCanonicalLocales(tag);
    return true;
  } catch {
    return false;
  }
}

export const langInvalid = pageAnalyzer('A11Y_LANG_INVALID', (p) => {
  if (!p.isHtml) return null;
  const html = p.elements('html')[0];
  if (!html)
    return pageFail('The page has no <html> element, so it declares no language.', '(no <html> element)', 'no html');
  const lang = attr(html, 'lang');
  const evidence = truncate(startTag(html), EVIDENCE_MAX);
  if (lang === undefined) return pageFail('The <html> element has no lang attribute.', evidence, 'missing');
  if (lang.trim() === '') return pageFail('The <html> element has an empty lang attribute.', evidence, 'empty');
  if (!isValidLangTag(lang.trim()))
    return pageFail(
      `The lang attribute "${lang}" is not a valid BCP 47 language tag.`,
      evidence,
      `invalid ${lang.trim().toLowerCase()}`,
    );
  return PAGE_PASS;
});

// ── A11Y_IMG_ALT_MISSING ─────────────────────────────────────────────────────────────────────────

function nonBlank(v: string | undefined): boolean {
  return v !== undefined && v.trim() !== '';
}

/** An accessible name from ARIA or title, which axe accepts in place of alt. */
function hasAriaName(el: Element): boolean {
  return nonBlank(attr(el, 'aria-label')) || nonBlank(attr(el, 'aria-labelledby')) || nonBlank(attr(el, 'title'));
}

/** axe image-alt: alt present (empty means decorative), presentational role, hidden, or an ARIA name. */
function imgHasAlt(img: Element): boolean {
  if (attr(img, 'alt') !== undefined) return true;
  const role = (attr(img, 'role') ?? '').trim().toLowerCase();
  if (role === 'presentation' || role === 'none') return true;
  if ((attr(img, 'aria-hidden') ?? '').trim().toLowerCase() === 'true') return true;
  return hasAriaName(img);
}

function imageInputs(p: ParsedPage): Element[] {
  return p.elements('input').filter((i) => (attr(i, 'type') ?? '').trim().toLowerCase() === 'image');
}

export const imgAltMissing = pageAnalyzer('A11Y_IMG_ALT_MISSING', (p) => {
  if (!p.isHtml) return null;
  const imgs = p.elements('img');
  const inputs = imageInputs(p);
  if (imgs.length === 0 && inputs.length === 0) return null; // nothing to describe on this page
  const issues: Issue[] = [];
  for (const img of imgs) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    if (!imgHasAlt(img) && !pageCss(p).isHidden(img))
      issues.push({
        outcome: 'fail',
        message: 'Image without an alt attribute.',
        evidence: snippet(p, img),
        subject: elementSubject(img, p.url),
      });
  }
  for (const input of inputs) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    // An image button needs a real name: alt="" would leave it unnamed.
    if (!nonBlank(attr(input, 'alt')) && !hasAriaName(input)) {
      issues.push({
        outcome: 'fail',
        message: 'Image button (input type="image") without alternative text.',
        evidence: snippet(p, input),
        subject: elementSubject(input, p.url),
      });
    }
  }
  return pageIssues(issues);
});

// ── A11Y_ZOOM_DISABLED ───────────────────────────────────────────────────────────────────────────

/** `width=device-width, initial-scale=1` → Map; both `,` and `;` separate, as browsers accept. */
export function parseViewport(content: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of content.split(/[,;]/)) {
    const eq = part.indexOf('=');
    const key = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (key !== '')
      out.set(
        key,
        eq === -1
          ? ''
          : part
              .slice(eq + 1)
              .trim()
              .toLowerCase(),
      );
  }
  return out;
}

/** The viewport meta in effect: browsers apply the last one. */
export function viewportMeta(p: ParsedPage): Element | undefined {
  const metas = metaNamed(p, 'viewport');
  return metas[metas.length - 1];
}

/**
 * The lowest maximum-scale that still lets text be enlarged to 200 % (WCAG 1.4.4): axe-core's
 * meta-viewport rule, which Lighthouse's meta-viewport audit runs. Its best-practice 5 (axe's
 * meta-viewport-large) is no failure: a page that zooms to 2× does not disable zooming.
 */
export const MIN_MAXIMUM_SCALE = 2;

/** Keywords axe accepts besides numbers: anything else there stops zooming. */
const USER_SCALABLE_WORDS = ['yes', 'device-width', 'device-height'];
const MAXIMUM_SCALE_WORDS = ['device-width', 'device-height'];

/** What in a viewport stops zooming, as axe-core's meta-viewport-scale check reads it. */
export function zoomProblems(vp: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  const scalable = vp.get('user-scalable');
  if (scalable) {
    const n = parseFloat(scalable);
    if ((Number.isNaN(n) && !USER_SCALABLE_WORDS.includes(scalable)) || (n > -1 && n < 1))
      problems.push(`user-scalable=${scalable}`);
  }
  const max = vp.get('maximum-scale');
  if (max) {
    const n = parseFloat(max);
    if (Number.isNaN(n) && !MAXIMUM_SCALE_WORDS.includes(max)) problems.push(`maximum-scale=${max} (not a scale)`);
    else if (n >= 0 && n < MIN_MAXIMUM_SCALE) problems.push(`maximum-scale=${max} (below ${MIN_MAXIMUM_SCALE})`);
  }
  return problems;
}

export const zoomDisabled = pageAnalyzer('A11Y_ZOOM_DISABLED', (p) => {
  if (!p.isHtml) return null;
  const meta = viewportMeta(p);
  if (!meta) return null; // without a viewport the page zooms (BP_VIEWPORT_MISSING covers it)
  const problems = zoomProblems(parseViewport(attr(meta, 'content') ?? ''));
  if (problems.length === 0) return PAGE_PASS;
  // Subject: which settings prevent zooming (not their values).
  const settings = problems.map((s) => s.split('=')[0]!).join(' ');
  return pageFail(`The viewport prevents zooming: ${problems.join(', ')}.`, snippet(p, meta), settings);
});

export const A11Y_PAGE_ANALYZERS: readonly Analyzer[] = [imgAltMissing, langInvalid, zoomDisabled];
