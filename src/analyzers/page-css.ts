import { isTag, type Element } from 'domhandler';
import { textContent } from 'domutils';
import { mediaAttributeMatches } from './css-conditions';
import { overrideClass, PageCascade, type Computed, type Winner } from './css-cascade';
import { parseInlineStyle, parseStylesheet, type CssDeclaration, type ParsedSheet } from './css-sheet';
import { attr, hasAncestor, type ParsedPage, type StylesheetTexts } from './parse';

/**
 * What the site's own CSS says about an element, as a browser with JavaScript on shows the page at
 * the audited mobile viewport: whether it is hidden (computed `display:none` on it or an ancestor,
 * computed `visibility:hidden|collapse`, or `aria-hidden="true"`) and whether its computed width and
 * height (or aspect-ratio) are set. The cascade (css-cascade.ts) runs over the user-agent rules that
 * hide elements, the site stylesheets the page links and its <style> elements, in document order,
 * with inline `style` attributes; a page script that swaps `no-js` for `js` on <html> is applied
 * first (docs/analyzers.md "Accuracy rules").
 */

export interface PageCss {
  /** Hidden from everyone, or from assistive technologies, by markup or the page's CSS. */
  isHidden(el: Element): boolean;
  /** Width and height (or aspect-ratio) set by the cascade: inline style and the page's stylesheets. */
  isSizedByCss(el: Element): boolean;
}

/**
 * The user agent's own rules that hide elements (HTML's rendering section), with scripting on, so
 * <noscript> content is not rendered. Author rules may override the normal ones (`[hidden]`). The
 * content of a closed <details> is hidden too, beyond any author rule (see closedDetails).
 */
const USER_AGENT_SHEET = parseStylesheet(
  `[hidden], template, dialog:not([open]), input[type=hidden] { display: none }
   noscript { display: none !important }`,
  'user-agent',
);

/** A child of a closed <details> other than its summary: a direct test, cheaper than a selector every element tries. */
function closedDetails(el: Element, parent: Element | null): boolean {
  if (parent?.name !== 'details' || attr(parent, 'open') !== undefined) return false;
  return el.name !== 'summary' || parent.children.find((c) => isTag(c) && c.name === 'summary') !== el;
}

const cache = new WeakMap<ParsedPage, PageCss>();

export function pageCss(p: ParsedPage): PageCss {
  let css = cache.get(p);
  if (!css) cache.set(p, (css = buildPageCss(p)));
  return css;
}

/** Each site stylesheet is parsed once per analysis, however many pages link it. */
const linkedSheets = new WeakMap<StylesheetTexts, Map<string, ParsedSheet>>();
/** <style> texts repeat from page to page of a site: the latest ones are kept, parsed. */
const inlineSheets = new Map<string, ParsedSheet>();
const INLINE_SHEETS_KEPT = 32;

function inlineSheet(text: string): ParsedSheet {
  let sheet = inlineSheets.get(text);
  if (sheet) {
    inlineSheets.delete(text); // most recently used last
  } else {
    sheet = parseStylesheet(text);
    if (inlineSheets.size >= INLINE_SHEETS_KEPT) inlineSheets.delete(inlineSheets.keys().next().value!);
  }
  inlineSheets.set(text, sheet);
  return sheet;
}

function linkedSheet(p: ParsedPage, link: Element): ParsedSheet | null {
  if (p.stylesheets.size === 0) return null;
  const rel = (attr(link, 'rel') ?? '').toLowerCase().split(/\s+/);
  if (!rel.includes('stylesheet') || rel.includes('alternate') || attr(link, 'disabled') !== undefined) return null;
  let url: string;
  try {
    url = new URL(attr(link, 'href') ?? '', p.url).href;
  } catch {
    return null;
  }
  const text = p.stylesheets.get(url);
  if (text === undefined) return null;
  let sheets = linkedSheets.get(p.stylesheets);
  if (!sheets) linkedSheets.set(p.stylesheets, (sheets = new Map()));
  let sheet = sheets.get(url);
  if (!sheet) sheets.set(url, (sheet = parseStylesheet(text)));
  return sheet;
}

/** The page's stylesheets in document order, after the user agent's: linked sheets and <style> elements. */
function pageSheets(p: ParsedPage): ParsedSheet[] {
  const nodes = [...p.elements('link'), ...p.elements('style')]
    .filter((el) => mediaAttributeMatches(attr(el, 'media')))
    .sort((a, b) => (a.startIndex ?? 0) - (b.startIndex ?? 0));
  const sheets = [USER_AGENT_SHEET];
  for (const el of nodes) {
    // With scripting on, <noscript> content is text, and <template> content is inert.
    if (hasAncestor(el, 'noscript') || hasAncestor(el, 'template')) continue;
    const sheet = el.name === 'link' ? linkedSheet(p, el) : inlineSheet(textContent(el));
    if (sheet) sheets.push(sheet);
  }
  return sheets;
}

/**
 * An inline script that takes `no-js` off <html>: `className.replace(/no-js/, 'js')` and its string
 * and RegExp spellings, Modernizr's `new RegExp(… 'no-js' …)` then `.replace(`, `classList.remove('no-js')`
 * and `.replace('no-js', …)`. Conservative and textual: a script that only mentions no-js does not count.
 */
const NO_JS_SWAP = new RegExp(
  [
    /classList\s*\.\s*(?:remove|replace)\s*\(\s*(['"`])no-js\1/.source,
    /className[^;]{0,200}?\.replace\s*\(\s*(?:new\s+RegExp\s*\(\s*)?(?:\/[^/\n]{0,80}|['"`][^'"`\n]{0,80})no-js/.source,
    /RegExp\s*\([^;]{0,80}no-js[^;]{0,80}\)\s*;?[^;]{0,60}className[^;]{0,60}\.replace\s*\(/.source,
  ].join('|'),
);

/** `no-js` on <html> becomes `js` when the page's own script swaps it, as it does before first paint. */
function applyScriptClasses(p: ParsedPage): void {
  const html = p.elements('html')[0];
  const classes = html ? (attr(html, 'class') ?? '').split(/\s+/) : [];
  if (!html || !classes.includes('no-js')) return;
  const swaps = p.elements('script').some((s) => {
    if (attr(s, 'src') !== undefined) return false;
    const type = (attr(s, 'type') ?? '').trim().toLowerCase();
    return (type === '' || type === 'module' || /javascript|ecmascript/.test(type)) && NO_JS_SWAP.test(textContent(s));
  });
  if (swaps) overrideClass(html, classes.map((c) => (c === 'no-js' ? 'js' : c)).join(' '));
}

/** What the cascade said about one element, worked out as the analyzers ask. */
interface ElementState {
  computed: Computed;
  /** display:none (or aria-hidden) on it or an ancestor. */
  removed?: boolean;
  /** Computed visibility hidden or collapse. */
  invisible?: boolean;
}

function buildPageCss(p: ParsedPage): PageCss {
  applyScriptClasses(p);
  const cascade = new PageCascade(pageSheets(p));
  const states = new Map<Element, ElementState>();
  const state = (el: Element): ElementState => {
    let known = states.get(el);
    if (!known) states.set(el, (known = { computed: cascade.compute(el, 'hiding', inlineOf(el)) }));
    return known;
  };
  const parentOf = (el: Element) => (el.parent !== null && isTag(el.parent) ? el.parent : null);
  // display:none (or aria-hidden) takes the whole subtree out, whatever the descendants say.
  const removed = (el: Element): boolean => {
    const s = state(el);
    if (s.removed === undefined) {
      const parent = parentOf(el);
      s.removed =
        (attr(el, 'aria-hidden') ?? '').trim().toLowerCase() === 'true' ||
        /^none\b/.test(s.computed.display?.value ?? '') ||
        closedDetails(el, parent) ||
        (parent !== null && removed(parent));
    }
    return s.removed;
  };
  // visibility is inherited: `visible` on a child of a `hidden` element shows the child.
  const invisible = (el: Element): boolean => {
    const s = state(el);
    if (s.invisible === undefined) {
      const value = s.computed.visibility?.value ?? 'inherit';
      const parent = parentOf(el);
      if (/^(hidden|collapse)\b/.test(value)) s.invisible = true;
      else if (/^(visible|initial)\b/.test(value)) s.invisible = false;
      else s.invisible = parent !== null && invisible(parent);
    }
    return s.invisible;
  };
  const isSizedByCss = (el: Element): boolean => {
    const sized = cascade.compute(el, 'sizing', inlineOf(el));
    const set = (w: Winner | undefined) => w !== undefined && !/^(auto|initial|unset|inherit|revert)/.test(w.value);
    return set(sized['aspect-ratio']) || (set(sized.width) && set(sized.height));
  };
  return { isHidden: (el) => removed(el) || invisible(el), isSizedByCss };
}

const NO_DECLARATIONS: readonly CssDeclaration[] = Object.freeze([]);

function inlineOf(el: Element): readonly CssDeclaration[] {
  const style = attr(el, 'style');
  return style === undefined ? NO_DECLARATIONS : parseInlineStyle(style);
}
