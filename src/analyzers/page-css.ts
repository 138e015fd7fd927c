import { isTag, type Element } from 'domhandler';
import { textContent } from 'domutils';
import { mediaAttributeMatches } from './css-conditions';
import { overrideClass, PageCascade } from './css-cascade';
import { cascadeRules, type Winner } from './css-rules';
import { parseInlineStyle, parseStylesheet, type CssDeclaration, type ParsedSheet } from './css-sheet';
import { attr, hasAncestor, type ParsedPage, type StylesheetTexts } from './parse';

/**
 * What the site's own CSS says about an element, as a browser with JavaScript on shows the page at
 * the audited mobile viewport: whether it is hidden (computed `display:none` on it or an ancestor,
 * computed `visibility:hidden|collapse`, or `aria-hidden="true"`) and whether its computed width and
 * height (or aspect-ratio) are set. The cascade (css-cascade.ts) runs over the user-agent rules that
 * hide elements, the site stylesheets the page links and its <style> elements, in document order,
 * with inline `style` attributes; on a page that runs a script, `no-js` on <html> is read as `js`
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

/** HTML's JavaScript MIME type essences and `module`: a <script> of another type (JSON, a template…) never runs. */
const SCRIPT_TYPES = new Set([
  'module',
  'application/ecmascript',
  'application/javascript',
  'application/x-ecmascript',
  'application/x-javascript',
  'text/ecmascript',
  'text/javascript',
  'text/javascript1.0',
  'text/javascript1.1',
  'text/javascript1.2',
  'text/javascript1.3',
  'text/javascript1.4',
  'text/javascript1.5',
  'text/jscript',
  'text/livescript',
  'text/x-ecmascript',
  'text/x-javascript',
]);

/**
 * Whether a browser with JavaScript runs this <script> as the page loads: a classic or module script
 * (HTML's type, or legacy `language`, rules) with a src or some code, outside <template> and
 * <noscript>; `nomodule` ones are skipped by every browser that runs modules.
 */
function runs(script: Element): boolean {
  const type = attr(script, 'type');
  const language = attr(script, 'language');
  const kind =
    type !== undefined ? type : language !== undefined && language !== '' ? `text/${language}` : 'text/javascript';
  const essence = kind.split(';')[0]!.trim().toLowerCase();
  if (essence !== '' && !SCRIPT_TYPES.has(essence)) return false;
  if (attr(script, 'nomodule') !== undefined && essence !== 'module') return false;
  const src = attr(script, 'src');
  if (src !== undefined ? src.trim() === '' : textContent(script).trim() === '') return false;
  return !hasAncestor(script, 'template') && !hasAncestor(script, 'noscript');
}

/**
 * `no-js` on <html> becomes `js` on a page that runs any script, inline or external: that is the
 * convention (Modernizr, Material for MkDocs' bundle, the themes that copy them), and the swap
 * happens before the user sees the page. A page that runs no script keeps `no-js`.
 */
function applyScriptClasses(p: ParsedPage): void {
  const html = p.elements('html')[0];
  const classes = html ? (attr(html, 'class') ?? '').split(/\s+/) : [];
  if (!html || !classes.includes('no-js') || !p.elements('script').some(runs)) return;
  overrideClass(html, classes.map((c) => (c === 'no-js' ? 'js' : c)).join(' '));
}

/** An element's hidden state, worked out once: display:none (or aria-hidden) on it or an ancestor… */
const REMOVED = 1;
/** …or its computed visibility is hidden or collapse… */
const INVISIBLE = 2;
/** …and that it has been worked out. */
const KNOWN = 4;

function buildPageCss(p: ParsedPage): PageCss {
  applyScriptClasses(p);
  const cascade = new PageCascade(cascadeRules(pageSheets(p)));
  // By the element's offset in the source (the parser records it; no two elements share one): an
  // array, not a map, since the analyzers may ask about every element of the page.
  const states = new Uint8Array(p.source.length);
  const stateOf = (el: Element): number => {
    let state = states[el.startIndex!]!;
    if (state === 0) {
      const parent = el.parent !== null && isTag(el.parent) ? el.parent : null;
      const above = parent === null ? 0 : stateOf(parent);
      // display:none (or aria-hidden) takes the whole subtree out, whatever the descendants say.
      if (above & REMOVED) state = REMOVED;
      else {
        const { display, visibility } = cascade.hiding(el, inlineOf(el));
        const removed =
          (attr(el, 'aria-hidden') ?? '').trim().toLowerCase() === 'true' ||
          (display !== undefined && /^none\b/.test(display.value)) ||
          closedDetails(el, parent);
        // visibility is inherited: `visible` on a child of a `hidden` element shows the child.
        const value = visibility?.value;
        const inherited = (above & INVISIBLE) !== 0;
        const invisible =
          value === undefined
            ? inherited
            : /^(hidden|collapse)\b/.test(value) || (!/^(visible|initial)\b/.test(value) && inherited);
        state = (removed ? REMOVED : 0) | (invisible ? INVISIBLE : 0);
      }
      states[el.startIndex!] = state |= KNOWN;
    }
    return state;
  };
  const isSizedByCss = (el: Element): boolean => {
    const sized = cascade.sizing(el, inlineOf(el));
    const set = (w: Winner | undefined) => w !== undefined && !/^(auto|initial|unset|inherit|revert)/.test(w.value);
    return set(sized['aspect-ratio']) || (set(sized.width) && set(sized.height));
  };
  return { isHidden: (el) => (stateOf(el) & (REMOVED | INVISIBLE)) !== 0, isSizedByCss };
}

const NO_DECLARATIONS: readonly CssDeclaration[] = Object.freeze([]);

function inlineOf(el: Element): readonly CssDeclaration[] {
  const style = attr(el, 'style');
  return style === undefined ? NO_DECLARATIONS : parseInlineStyle(style);
}
