import { lexer, parse, type CssNode, type List } from 'css-tree';

/**
 * Conditional CSS as the audited page sees it: `@media` evaluated at Lighthouse's mobile viewport
 * (412 × 823 CSS px, screen, light colour scheme, touch, 16px em) and `@supports` against css-tree's
 * grammar of CSS (docs/analyzers.md "Accuracy rules"). A feature or value we cannot evaluate makes its
 * condition unknown, and an unknown condition does not apply (Media Queries 4's three-valued logic).
 */

export const VIEWPORT = { width: 412, height: 823, emPx: 16 } as const;

/** true / false / unknown. */
type Truth = boolean | null;

const PX_PER_UNIT: Readonly<Record<string, number>> = {
  px: 1,
  em: VIEWPORT.emPx,
  rem: VIEWPORT.emPx,
  in: 96,
  cm: 96 / 2.54,
  mm: 96 / 25.4,
  pt: 96 / 72,
  pc: 16,
};

/** Discrete features with the value the mobile viewport has (its other values are false). */
const DISCRETE: Readonly<Record<string, string>> = {
  orientation: VIEWPORT.height >= VIEWPORT.width ? 'portrait' : 'landscape',
  'prefers-color-scheme': 'light',
  'prefers-reduced-motion': 'no-preference',
  hover: 'none',
  'any-hover': 'none',
  pointer: 'coarse',
  'any-pointer': 'coarse',
};

/** Media types that are not a screen: rules for them do not apply. */
const SCREEN_TYPES = new Set(['all', 'screen']);

function and(values: Truth[]): Truth {
  return values.includes(false) ? false : values.includes(null) ? null : true;
}

function or(values: Truth[]): Truth {
  return values.includes(true) ? true : values.includes(null) ? null : false;
}

const not = (v: Truth): Truth => (v === null ? null : !v);

/**
 * A value of a range feature: a length in px for width and height (a bare number only if 0), a
 * ratio or number for aspect-ratio; null for anything else (calc(), var(), a unitless 600…).
 */
function numberOf(node: CssNode | null, feature: string): number | null {
  if (!node) return null;
  const ratio = feature === 'aspect-ratio';
  if (node.type === 'Number') return ratio || Number(node.value) === 0 ? Number(node.value) : null;
  if (node.type === 'Dimension') {
    const factor = PX_PER_UNIT[node.unit.toLowerCase()];
    return factor === undefined || ratio ? null : Number(node.value) * factor;
  }
  if (node.type === 'Ratio' && ratio) {
    const [l, r] = [numberOf(node.left, feature), node.right ? numberOf(node.right, feature) : 1];
    return l === null || r === null || r === 0 ? null : l / r;
  }
  return null;
}

/** The viewport's value of a range feature (width, height, aspect-ratio). */
function rangeValue(name: string): number | null {
  if (name === 'width') return VIEWPORT.width;
  if (name === 'height') return VIEWPORT.height;
  if (name === 'aspect-ratio') return VIEWPORT.width / VIEWPORT.height;
  return null;
}

function feature(name: string, value: CssNode | null): Truth {
  name = name.toLowerCase();
  const prefix = /^(min|max)-/.exec(name)?.[1];
  const base = prefix ? name.slice(4) : name;
  const actual = rangeValue(base);
  if (actual !== null) {
    if (value === null) return prefix ? null : actual !== 0;
    const wanted = numberOf(value, base);
    if (wanted === null) return null;
    return prefix === 'min' ? actual >= wanted : prefix === 'max' ? actual <= wanted : actual === wanted;
  }
  const discrete = DISCRETE[name];
  if (discrete === undefined || prefix) return null;
  if (value === null) return discrete !== 'none' && discrete !== 'no-preference';
  return value.type === 'Identifier' ? value.name.toLowerCase() === discrete : null;
}

function compare(a: number, op: string, b: number): boolean {
  if (op === '<') return a < b;
  if (op === '<=') return a <= b;
  if (op === '>') return a > b;
  if (op === '>=') return a >= b;
  return a === b;
}

/** `(width >= 600px)`, `(30em < width)`, `(400px <= width <= 700px)`. */
function featureRange(node: CssNode & { type: 'FeatureRange' }): Truth {
  const named = [node.left, node.middle].find((n) => n.type === 'Identifier');
  const base = named?.type === 'Identifier' ? named.name.toLowerCase() : '';
  const side = (n: CssNode | null): number | null => (n?.type === 'Identifier' ? rangeValue(base) : numberOf(n, base));
  const [left, middle, right] = [side(node.left), side(node.middle), side(node.right)];
  if (left === null || middle === null) return null;
  if (!compare(left, node.leftComparison, middle)) return false;
  if (node.rightComparison === null) return true;
  return right === null ? null : compare(middle, node.rightComparison, right);
}

type Operand = (node: CssNode) => Truth;

/** A condition's operands joined by `and` / `or`, each possibly preceded by `not`. */
function condition(children: List<CssNode>, operand: Operand): Truth {
  const values: Truth[] = [];
  let joiner: 'and' | 'or' = 'and';
  let negate = false;
  for (const child of children) {
    if (child.type === 'Identifier') {
      const word = child.name.toLowerCase();
      if (word === 'not') negate = !negate;
      else if (word === 'and' || word === 'or') joiner = word;
      else return null;
      continue;
    }
    const value = child.type === 'Condition' ? condition(child.children, operand) : operand(child);
    values.push(negate ? not(value) : value);
    negate = false;
  }
  return joiner === 'and' ? and(values) : or(values);
}

function mediaOperand(node: CssNode): Truth {
  if (node.type === 'Feature') return feature(node.name, node.value);
  if (node.type === 'FeatureRange') return featureRange(node);
  return null; // <general-enclosed> and anything newer than this evaluator
}

function mediaQuery(node: CssNode): boolean {
  if (node.type !== 'MediaQuery') return false;
  const type = node.mediaType === null || SCREEN_TYPES.has(node.mediaType.toLowerCase());
  const cond = node.condition ? condition(node.condition.children, mediaOperand) : true;
  if (cond === null) return false;
  const matches = type && cond;
  return node.modifier === 'not' ? !matches : matches;
}

/** A media query list (an @media prelude's); empty matches everything, any true query matches. */
export function mediaListMatches(list: CssNode | null): boolean {
  if (!list) return true;
  if (list.type === 'AtrulePrelude') {
    const first = list.children.first;
    return list.children.size === 1 && first !== null && mediaListMatches(first);
  }
  if (list.type !== 'MediaQueryList') return false; // unparsable: `not all`
  if (list.children.size === 0) return true;
  for (const query of list.children) if (mediaQuery(query)) return true;
  return false;
}

/** A `media` attribute (of <link> or <style>). */
export function mediaAttributeMatches(text: string | undefined): boolean {
  if (text === undefined || text.trim() === '') return true;
  try {
    return mediaListMatches(parse(text, { context: 'mediaQueryList' }));
  } catch {
    return false;
  }
}

function supportsOperand(node: CssNode): Truth {
  if (node.type === 'SupportsDeclaration') {
    const { property, value } = node.declaration;
    if (property.startsWith('--')) return true;
    const text = value.type === 'Raw' ? value.value : '';
    return !lexer.matchProperty(property, text).error;
  }
  return false; // selector(), font-tech() and the like: treated as unsupported
}

/** An @supports prelude: declarations are judged by css-tree's property grammar. */
export function supportsMatches(prelude: CssNode | null): boolean {
  const first = prelude?.type === 'AtrulePrelude' ? prelude.children.first : null;
  if (!first || first.type !== 'Condition') return false;
  return condition(first.children, supportsOperand) === true;
}
