import { parse as parseCss, type CssNode, type List } from 'css-tree';
import { parse as parseSelectors, type Selector } from 'css-what';
import { mediaListMatches, supportsMatches } from './css-conditions';
import {
  ancestorBits,
  isPseudoElement,
  ownAttributeTests,
  specificityOf,
  subjectKeys,
  type RequiredBits,
  type CompoundKeys,
} from './css-selector';

/**
 * A stylesheet parsed once (css-tree) into what the cascade needs: the style rules that declare a
 * property the analyzers read, selector by selector with its specificity (Selectors 4 §17), its
 * source order and cascade layer, indexed by the id, class or tag its subject must have, as browsers
 * index rules, so an element is matched only against rules that can apply to it. Rules whose @media
 * or @supports condition is false at the audited viewport are dropped here (docs/analyzers.md).
 */

/** The properties the analyzers read: hidden (display, visibility) and sized (width, height, aspect-ratio). */
export const HIDING_PROPERTIES = ['display', 'visibility'] as const;
export const SIZING_PROPERTIES = ['width', 'height', 'aspect-ratio'] as const;
export type CascadeProperty = (typeof HIDING_PROPERTIES)[number] | (typeof SIZING_PROPERTIES)[number];

export interface CssDeclaration {
  readonly property: CascadeProperty;
  /** Lower-cased, trimmed, without `!important`. */
  readonly value: string;
  readonly important: boolean;
}

/** One complex selector of a rule; shared by the rule's hiding and sizing entries. */
export interface SelectorInfo {
  /** css-what tokens, which css-select compiles. */
  readonly tokens: Selector[];
  /** a·10⁶ + b·10³ + c. */
  readonly specificity: number;
  /** Ids, classes and tags the element's ancestors must have; null when the selector requires none. */
  readonly ancestors: RequiredBits | null;
  /** The id, classes and tag the element itself must have. */
  readonly subject: CompoundKeys;
  /**
   * For one compound of those keys and `[attribute]` tests, the attributes tested: the element's own
   * tag, id, classes and attributes decide whether it matches. Null when css-select must decide.
   */
  readonly ownAttributes: readonly string[] | null;
  /** The compiled selector, made on first use; null when css-select cannot evaluate it. */
  match?: ((el: unknown) => boolean) | null;
}

export interface StyleEntry {
  readonly selector: SelectorInfo;
  /** Position of the rule in its stylesheet. */
  readonly order: number;
  /** The rule's cascade layer (dotted full name); null outside any layer. */
  readonly layer: string | null;
  readonly declarations: readonly CssDeclaration[];
}

/** Entries by the key their subject compound requires: an id, else a class, else a tag, else none. */
export interface RuleIndex {
  readonly byId: Map<string, StyleEntry[]>;
  readonly byClass: Map<string, StyleEntry[]>;
  readonly byTag: Map<string, StyleEntry[]>;
  readonly rest: StyleEntry[];
  size: number;
}

export interface ParsedSheet {
  /** Distinct per parse: the cascade's rules are shared by the pages with the same sheets (css-rules.ts). */
  readonly id: number;
  readonly origin: 'user-agent' | 'author';
  readonly hiding: RuleIndex;
  readonly sizing: RuleIndex;
  /** Layer names in order of first appearance (a parent before its sub-layers). */
  readonly layers: readonly string[];
}

const PROPERTIES = new Set<string>([...HIDING_PROPERTIES, ...SIZING_PROPERTIES]);
const HIDING = new Set<string>(HIDING_PROPERTIES);

let anonymousLayers = 0;
let sheetsParsed = 0;

function emptyIndex(): RuleIndex {
  return { byId: new Map(), byClass: new Map(), byTag: new Map(), rest: [], size: 0 };
}

export function parseStylesheet(text: string, origin: ParsedSheet['origin'] = 'author'): ParsedSheet {
  const sheet: ParsedSheet = { id: sheetsParsed++, origin, hiding: emptyIndex(), sizing: emptyIndex(), layers: [] };
  let ast: CssNode;
  try {
    ast = parseCss(text, { parseRulePrelude: false, parseValue: false, parseCustomProperty: false });
  } catch {
    return sheet;
  }
  if (ast.type === 'StyleSheet') new SheetReader(sheet).read(ast.children, null);
  return sheet;
}

/** `style` attributes repeat from element to element: their declarations, parsed once (a bounded memo). */
const inlineStyles = new Map<string, readonly CssDeclaration[]>();
const INLINE_STYLES_KEPT = 1024;

/** The declarations of a `style` attribute the analyzers read. */
export function parseInlineStyle(text: string): readonly CssDeclaration[] {
  if (!/display|visibility|width|height|aspect-ratio/i.test(text)) return [];
  let declarations = inlineStyles.get(text);
  if (!declarations) {
    if (inlineStyles.size >= INLINE_STYLES_KEPT) inlineStyles.clear();
    try {
      const list = parseCss(text, { context: 'declarationList', parseValue: false, parseCustomProperty: false });
      declarations = list.type === 'DeclarationList' ? declarationsOf(list.children) : [];
    } catch {
      declarations = [];
    }
    inlineStyles.set(text, declarations);
  }
  return declarations;
}

function declarationsOf(children: List<CssNode>): CssDeclaration[] {
  const out: CssDeclaration[] = [];
  for (const node of children) {
    if (node.type !== 'Declaration') continue;
    const property = node.property.toLowerCase();
    if (!PROPERTIES.has(property) || node.value.type !== 'Raw') continue;
    const value = node.value.value.trim().toLowerCase();
    if (value !== '') out.push({ property: property as CascadeProperty, value, important: Boolean(node.important) });
  }
  return out;
}

class SheetReader {
  private order = 0;
  private readonly layersSeen = new Set<string>();

  constructor(private readonly sheet: ParsedSheet) {}

  read(children: List<CssNode>, layer: string | null): void {
    for (const node of children) {
      if (node.type === 'Rule') this.rule(node.prelude, node.block.children, layer);
      else if (node.type === 'Atrule') this.atRule(node, layer);
    }
  }

  /** Only @layer, @media and @supports hold rules that apply to the page as loaded (not @container, @scope…). */
  private atRule(node: CssNode & { type: 'Atrule' }, layer: string | null): void {
    const name = node.name.toLowerCase();
    if (name === 'layer') return this.layerRule(node, layer);
    if (!node.block) return;
    if (name === 'media' ? mediaListMatches(node.prelude) : name === 'supports' && supportsMatches(node.prelude))
      this.read(node.block.children, layer);
  }

  /** `@layer a, b;` declares an order; `@layer a { … }` and `@layer { … }` hold rules. */
  private layerRule(node: CssNode & { type: 'Atrule' }, parent: string | null): void {
    const names: string[] = [];
    const list = node.prelude?.type === 'AtrulePrelude' ? node.prelude.children.first : null;
    if (list?.type === 'LayerList') for (const l of list.children) if (l.type === 'Layer') names.push(l.name);
    if (names.length === 0) names.push(`\u0000anonymous${anonymousLayers++}`);
    for (const name of names) {
      let full = parent;
      for (const part of name.split('.')) this.declareLayer((full = full === null ? part : `${full}.${part}`));
    }
    if (node.block && names.length === 1) {
      const full = parent === null ? names[0]! : `${parent}.${names[0]!}`;
      this.read(node.block.children, full);
    }
  }

  private declareLayer(full: string): void {
    if (this.layersSeen.has(full)) return;
    this.layersSeen.add(full);
    (this.sheet.layers as string[]).push(full);
  }

  private rule(prelude: CssNode, block: List<CssNode>, layer: string | null): void {
    const order = this.order++;
    const declarations = declarationsOf(block);
    if (declarations.length === 0 || prelude.type !== 'Raw') return;
    const selectors = selectorsOf(prelude.value);
    if (!selectors) return;
    const hiding = declarations.filter((d) => HIDING.has(d.property));
    const sizing = declarations.filter((d) => !HIDING.has(d.property));
    for (const selector of selectors) {
      if (hiding.length > 0) addEntry(this.sheet.hiding, { selector, order, layer, declarations: hiding });
      if (sizing.length > 0) addEntry(this.sheet.sizing, { selector, order, layer, declarations: sizing });
    }
  }
}

/** Each selector of a list with its specificity; null when css-what rejects the list. */
function selectorsOf(text: string): SelectorInfo[] | null {
  try {
    return parseSelectors(text)
      .filter((selector) => !selector.some(isPseudoElement)) // ::before and the like style no element
      .map((tokens) => {
        const [a, b, c] = specificityOf(tokens);
        const specificity = Math.min(a, 999) * 1e6 + Math.min(b, 999) * 1e3 + Math.min(c, 999);
        return {
          tokens,
          specificity,
          ancestors: ancestorBits(tokens),
          subject: subjectKeys(tokens),
          ownAttributes: ownAttributeTests(tokens),
        };
      });
  } catch {
    return null;
  }
}

function addEntry(index: RuleIndex, entry: StyleEntry): void {
  const { id, cls, tag } = entry.selector.subject;
  index.size++;
  if (id !== undefined) return push(index.byId, id, entry);
  if (cls !== undefined) return push(index.byClass, cls[0]!, entry);
  if (tag !== undefined) return push(index.byTag, tag, entry);
  index.rest.push(entry);
}

function push(map: Map<string, StyleEntry[]>, key: string, entry: StyleEntry): void {
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}
