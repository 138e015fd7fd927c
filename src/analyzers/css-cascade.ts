import { compile, type Options } from 'css-select';
import { isTag, type Element } from 'domhandler';
import * as DomUtils from 'domutils';
import type { CascadeProperty, CssDeclaration, ParsedSheet, RuleIndex, SelectorInfo, StyleEntry } from './css-sheet';
import { addElementKeys, mayHaveAncestors, type Bloom } from './css-selector';

/**
 * The cascade over a page's stylesheets, for one property group at a time: the declarations of every
 * rule whose selector matches (css-select on the parser's DOM) compete by origin and importance,
 * inline style, cascade layer, specificity and source order (CSS Cascade 5, docs/analyzers.md).
 */

/** Class attributes a page's own script rewrites before the user sees it (the `no-js` swap). */
const CLASS_OVERRIDES = new WeakMap<Element, string>();

export function overrideClass(el: Element, value: string): void {
  CLASS_OVERRIDES.set(el, value);
}

function classOf(el: Element): string | undefined {
  if (el.name === 'html') {
    const override = CLASS_OVERRIDES.get(el);
    if (override !== undefined) return override;
  }
  return el.attribs.class;
}

function classesOf(el: Element): readonly string[] {
  const cls = classOf(el);
  return cls ? cls.split(/[ \t\n\f\r]+/) : NO_CLASSES;
}

/** css-select's default adapter (domutils, domhandler's isTag), seeing the script-rewritten class of <html>. */
const ADAPTER = {
  ...DomUtils,
  isTag,
  getAttributeValue: (el: Element, name: string) => (name === 'class' ? classOf(el) : el.attribs[name]),
  hasAttrib: (el: Element, name: string) => (name === 'class' ? classOf(el) !== undefined : name in el.attribs),
};

const never = () => false;

/** The page as loaded: nothing is focused, hovered or targeted yet. */
const SELECT_OPTIONS = {
  adapter: ADAPTER,
  pseudos: { focus: never, 'focus-within': never, 'focus-visible': never, target: never, 'target-within': never },
} as unknown as Options<never, never>;

function matcher(selector: SelectorInfo): ((el: unknown) => boolean) | null {
  if (selector.match === undefined) {
    try {
      selector.match = compile([selector.tokens], SELECT_OPTIONS) as (el: unknown) => boolean;
    } catch {
      selector.match = null; // a selector css-select cannot evaluate never matches, so it never hides
    }
  }
  return selector.match;
}

/** The winning declaration of one property, with the rank it won by (compared in this order). */
export interface Winner {
  readonly value: string;
  /** Origin and importance, then inline or not, then cascade layer, packed. */
  readonly cascade: number;
  readonly specificity: number;
  /** Stylesheet, then rule, in document order. */
  readonly position: number;
}

/** The group's properties that some declaration sets on the element. */
export type Computed = Partial<Record<CascadeProperty, Winner>>;
const NOTHING: Computed = Object.freeze({});
const NO_CLASSES: readonly string[] = [];
const LAYER_SPAN = 2 ** 20;

/**
 * Origin and importance (user-agent normal < author normal < author !important < user-agent
 * !important), then inline style, then the layer: important declarations of earlier layers beat
 * those of later layers and of unlayered styles.
 */
function cascadeRank(tier: number, inline: boolean, layer: number, important: boolean): number {
  return (tier * 2 + (inline ? 1 : 0)) * 2 * LAYER_SPAN + (important ? -layer : layer) + LAYER_SPAN;
}

/** Keeps `candidate` when it outranks the current winner (an equal rank: the later declaration wins). */
function offer(out: Computed, property: CascadeProperty, candidate: Winner): void {
  const current = out[property];
  if (
    !current ||
    candidate.cascade > current.cascade ||
    (candidate.cascade === current.cascade &&
      (candidate.specificity > current.specificity ||
        (candidate.specificity === current.specificity && candidate.position >= current.position)))
  )
    out[property] = candidate;
}

export class PageCascade {
  /** Layer name → rank (later layers higher); unlayered styles rank above every layer. */
  private readonly layerRanks: Map<string, number>;
  private readonly unlayered: number;

  /** Per element, the Bloom filter of its ancestors' ids, classes and tags. */
  private readonly ancestorBlooms = new Map<Element, Bloom>();

  constructor(private readonly sheets: readonly ParsedSheet[]) {
    this.layerRanks = layerRanks(sheets);
    this.unlayered = this.layerRanks.size;
  }

  private ancestorsOf(el: Element): Bloom {
    let bloom = this.ancestorBlooms.get(el);
    if (!bloom) {
      const parent = el.parent;
      if (parent === null || !isTag(parent)) bloom = [0, 0, 0, 0];
      else {
        const above = this.ancestorsOf(parent);
        bloom = [above[0], above[1], above[2], above[3]];
        addElementKeys(bloom, parent.attribs.id, classOf(parent), parent.name);
      }
      this.ancestorBlooms.set(el, bloom);
    }
    return bloom;
  }

  /** Specified values of the group's properties for an element: its inline declarations and matching rules. */
  compute(el: Element, group: 'hiding' | 'sizing', inline: readonly CssDeclaration[]): Computed {
    const tally: Computed = {};
    for (const d of inline)
      offer(tally, d.property, {
        value: d.value,
        cascade: cascadeRank(d.important ? 2 : 1, true, 0, false),
        specificity: 0,
        position: 0,
      });
    const id = el.attribs.id;
    const classes = classesOf(el);
    for (let s = 0; s < this.sheets.length; s++) {
      const sheet = this.sheets[s]!;
      const index: RuleIndex = sheet[group];
      if (index.size === 0) continue;
      if (id !== undefined) this.match(el, sheet, s, index.byId.get(id), tally);
      for (const c of classes) if (c !== '') this.match(el, sheet, s, index.byClass.get(c), tally);
      this.match(el, sheet, s, index.byTag.get(el.name), tally);
      this.match(el, sheet, s, index.rest, tally);
    }
    for (const _ in tally) return tally;
    return NOTHING;
  }

  private match(
    el: Element,
    sheet: ParsedSheet,
    sheetIndex: number,
    entries: readonly StyleEntry[] | undefined,
    tally: Computed,
  ): void {
    if (!entries) return;
    for (const entry of entries) {
      const { ancestors } = entry.selector;
      if (ancestors !== null && !mayHaveAncestors(ancestors, this.ancestorsOf(el))) continue;
      const match = matcher(entry.selector);
      if (!match || !match(el)) continue;
      const layer = entry.layer === null ? this.unlayered : (this.layerRanks.get(entry.layer) ?? this.unlayered);
      const { specificity } = entry.selector;
      const position = sheetIndex * 2 ** 24 + entry.order;
      for (const d of entry.declarations) {
        const tier = sheet.origin === 'author' ? (d.important ? 2 : 1) : d.important ? 3 : 0;
        offer(tally, d.property, {
          value: d.value,
          cascade: cascadeRank(tier, false, layer, d.important),
          specificity,
          position,
        });
      }
    }
  }
}

/**
 * Layer order across the page's sheets: layers rank by first appearance, a parent layer's own rules
 * after its sub-layers (a post-order walk of the layer tree).
 */
function layerRanks(sheets: readonly ParsedSheet[]): Map<string, number> {
  const ranks = new Map<string, number>();
  const children = new Map<string | null, string[]>();
  for (const sheet of sheets)
    for (const name of sheet.layers) {
      if (children.has(name)) continue;
      const dot = name.lastIndexOf('.');
      const parent = dot < 0 ? null : name.slice(0, dot);
      children.set(name, []);
      const siblings = children.get(parent) ?? [];
      siblings.push(name);
      children.set(parent, siblings);
    }
  const visit = (name: string) => {
    for (const child of children.get(name) ?? []) visit(child);
    ranks.set(name, ranks.size);
  };
  for (const top of children.get(null) ?? []) visit(top);
  return ranks;
}
