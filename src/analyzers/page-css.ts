import { isTag, type Element } from 'domhandler';
import { textContent } from 'domutils';
import { attr, type ParsedPage, type StylesheetTexts } from './parse';

/**
 * What the site's own CSS says about an element, as far as the accuracy rules need it: whether it is
 * hidden (`display:none`, `visibility:hidden`, the `hidden` attribute, `aria-hidden="true"`, on it or
 * an ancestor) and whether rules give it a width and a height. Rules come from inline `style`
 * attributes, the page's <style> elements and the site stylesheets it links. At-rules (@media…)
 * are skipped and so are selectors beyond type, #id, .class and [attribute] compounds joined by
 * descendant or child combinators: an unknown selector never hides anything.
 */

interface Compound {
  tag: string | null;
  ids: string[];
  classes: string[];
  attributes: Array<{ name: string; value: string | null }>;
}

/** A selector read right to left: the subject first, then each ancestor step with its combinator. */
type Selector = Array<{ compound: Compound; combinator: ' ' | '>' | null }>;

interface CssRule {
  selectors: Selector[];
  declarations: Map<string, string>;
}

export interface PageCss {
  /** Hidden from everyone, or from assistive technologies, by markup or the page's CSS. */
  isHidden(el: Element): boolean;
  /** Width and height (or aspect-ratio) set by an inline style or a matching <style> rule. */
  isSizedByCss(el: Element): boolean;
}

const cache = new WeakMap<ParsedPage, PageCss>();

export function pageCss(p: ParsedPage): PageCss {
  let css = cache.get(p);
  if (!css) cache.set(p, (css = buildPageCss(p)));
  return css;
}

/** Each site stylesheet is parsed once per analysis, however many pages link it. */
const parsedSheets = new WeakMap<StylesheetTexts, Map<string, CssRule[]>>();

/** Rules of the site stylesheets the page links for screens (print-only sheets hide nothing on screen). */
function linkedRules(p: ParsedPage): CssRule[] {
  if (p.stylesheets.size === 0) return [];
  let cache = parsedSheets.get(p.stylesheets);
  if (!cache) parsedSheets.set(p.stylesheets, (cache = new Map()));
  const rules: CssRule[] = [];
  for (const link of p.elements('link')) {
    if (!(attr(link, 'rel') ?? '').toLowerCase().split(/\s+/).includes('stylesheet')) continue;
    if (!/^\s*(all|screen)?\s*$/i.test(attr(link, 'media') ?? '')) continue;
    let url: string;
    try {
      url = new URL(attr(link, 'href') ?? '', p.url).href;
    } catch {
      continue;
    }
    const text = p.stylesheets.get(url);
    if (text === undefined) continue;
    let parsed = cache.get(url);
    if (!parsed) cache.set(url, (parsed = parseStylesheet(text)));
    rules.push(...parsed);
  }
  return rules;
}

function buildPageCss(p: ParsedPage): PageCss {
  const rules = [...linkedRules(p), ...p.elements('style').flatMap((s) => parseStylesheet(textContent(s)))];
  const hiding = rules.filter((r) => hides(r.declarations));
  const sizing = rules.filter((r) => r.declarations.has('width') || r.declarations.has('height'));
  const hiddenMemo = new Map<Element, boolean>();
  const hiddenItself = (el: Element): boolean =>
    attr(el, 'hidden') !== undefined ||
    (attr(el, 'aria-hidden') ?? '').trim().toLowerCase() === 'true' ||
    hides(inlineDeclarations(el)) ||
    hiding.some((r) => r.selectors.some((s) => matches(el, s)));
  const isHidden = (el: Element): boolean => {
    let known = hiddenMemo.get(el);
    if (known === undefined) {
      known = hiddenItself(el) || (el.parent !== null && isTag(el.parent) && isHidden(el.parent));
      hiddenMemo.set(el, known);
    }
    return known;
  };
  const isSizedByCss = (el: Element): boolean => {
    const declared = new Map(inlineDeclarations(el));
    for (const r of sizing)
      if (r.selectors.some((s) => matches(el, s))) for (const [k, v] of r.declarations) declared.set(k, v);
    const set = (prop: string) => declared.has(prop) && declared.get(prop) !== 'auto';
    return set('aspect-ratio') || (set('width') && set('height'));
  };
  return { isHidden, isSizedByCss };
}

function hides(declarations: ReadonlyMap<string, string>): boolean {
  return /^none\b/.test(declarations.get('display') ?? '') || /^hidden\b/.test(declarations.get('visibility') ?? '');
}

function inlineDeclarations(el: Element): Map<string, string> {
  const style = attr(el, 'style');
  return style === undefined ? new Map() : parseDeclarations(style);
}

function parseDeclarations(block: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of block.split(';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const name = part.slice(0, colon).trim().toLowerCase();
    const value = part
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (name !== '' && value !== '') out.set(name, value);
  }
  return out;
}

/** Top-level style rules of a stylesheet; at-rules and their blocks are dropped. */
function parseStylesheet(text: string): CssRule[] {
  const source = text.replace(/\/\*[\s\S]*?\*\//g, '');
  const rules: CssRule[] = [];
  let depth = 0;
  let start = 0;
  let prelude = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '{') {
      if (depth === 0) prelude = source.slice(start, i).trim();
      depth++;
      start = i + 1;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) {
        if (prelude !== '' && !prelude.startsWith('@')) {
          const selectors = prelude
            .split(',')
            .map(parseSelector)
            .filter((s): s is Selector => s !== null);
          if (selectors.length > 0) rules.push({ selectors, declarations: parseDeclarations(source.slice(start, i)) });
        }
        start = i + 1;
      }
    } else if (c === ';' && depth === 0) start = i + 1; // e.g. @import …;
  }
  return rules;
}

const COMPOUND_PART =
  /^(?:([a-zA-Z][\w-]*|\*)|#([\w-]+)|\.([\w-]+)|\[\s*([\w-]+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([\w-]+))\s*)?\])/;

/** Null for a selector outside the supported subset. */
function parseSelector(text: string): Selector | null {
  const steps = text
    .trim()
    .replace(/\s*>\s*/g, ' > ')
    .split(/\s+/);
  const selector: Selector = [];
  let combinator: ' ' | '>' | null = null;
  for (const step of steps) {
    if (step === '>') {
      if (combinator !== ' ' || selector.length === 0) return null;
      combinator = '>';
      continue;
    }
    const compound = parseCompound(step);
    if (!compound) return null;
    selector.unshift({ compound, combinator: selector.length === 0 ? null : combinator });
    combinator = ' ';
  }
  // Each step keeps the combinator that joins it to the step on its left (its ancestor step).
  return selector.length > 0 && combinator !== '>' ? selector : null;
}

function parseCompound(text: string): Compound | null {
  const compound: Compound = { tag: null, ids: [], classes: [], attributes: [] };
  let rest = text;
  while (rest !== '') {
    const m = COMPOUND_PART.exec(rest);
    if (!m) return null;
    if (m[1] !== undefined) {
      if (rest !== text) return null; // a type selector only leads a compound
      if (m[1] !== '*') compound.tag = m[1].toLowerCase();
    } else if (m[2] !== undefined) compound.ids.push(m[2]);
    else if (m[3] !== undefined) compound.classes.push(m[3]);
    else compound.attributes.push({ name: m[4]!.toLowerCase(), value: m[5] ?? m[6] ?? m[7] ?? null });
    rest = rest.slice(m[0].length);
  }
  return compound;
}

function matchesCompound(el: Element, c: Compound): boolean {
  if (c.tag !== null && el.name !== c.tag) return false;
  if (c.ids.some((id) => attr(el, 'id') !== id)) return false;
  if (c.classes.length > 0) {
    const classes = (attr(el, 'class') ?? '').split(/\s+/);
    if (c.classes.some((k) => !classes.includes(k))) return false;
  }
  return c.attributes.every((a) => {
    const v = attr(el, a.name);
    return v !== undefined && (a.value === null || v === a.value);
  });
}

function matches(el: Element, selector: Selector, from = 0): boolean {
  const step = selector[from]!;
  if (!matchesCompound(el, step.compound)) return false;
  if (from === selector.length - 1) return true;
  const combinator = step.combinator;
  for (let p = el.parent; p && isTag(p); p = p.parent) {
    if (matches(p, selector, from + 1)) return true;
    if (combinator === '>') return false;
  }
  return false;
}
