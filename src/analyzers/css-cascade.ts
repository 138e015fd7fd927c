import { compile, type Options } from 'css-select';
import { isTag, type Element } from 'domhandler';
import * as DomUtils from 'domutils';
import { cascadeRank, offer, type CascadeRules, type Candidate, type Computed, type GroupRules } from './css-rules';
import type { CssDeclaration, SelectorInfo } from './css-sheet';
import { addElementKeys, emptyBloom, type Bloom } from './css-selector';

/**
 * The cascade over a page's stylesheets, for one property group at a time: the declarations of every
 * rule whose selector matches (css-rules.ts decides plain selectors by the element's own keys,
 * css-select the others on the parser's DOM) compete by origin and importance, inline style, cascade
 * layer, specificity and source order (CSS Cascade 5, docs/analyzers.md).
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

/** Whether css-select matches the element; a selector it cannot evaluate never matches, so it never hides. */
function matches(selector: SelectorInfo, el: Element): boolean {
  if (selector.match === undefined) {
    try {
      selector.match = compile([selector.tokens], SELECT_OPTIONS) as (el: unknown) => boolean;
    } catch {
      selector.match = null;
    }
  }
  return selector.match !== null && selector.match(el);
}

const NO_ANCESTORS: Bloom = Object.freeze(emptyBloom()) as Bloom;

export class PageCascade {
  /** Per element that has children asked about, the Bloom filter of its and its ancestors' ids, classes and tags. */
  private readonly blooms = new Map<Element, Bloom>();
  /** The rules one element is matched against, reused from element to element. */
  private readonly scratch: Candidate[] = [];

  constructor(private readonly rules: CascadeRules) {}

  private withAncestors(el: Element): Bloom {
    let bloom = this.blooms.get(el);
    if (!bloom) {
      const parent = el.parent;
      bloom = parent !== null && isTag(parent) ? this.withAncestors(parent).slice() : emptyBloom();
      addElementKeys(bloom, el.attribs.id, classOf(el), el.name);
      this.blooms.set(el, bloom);
    }
    return bloom;
  }

  private ancestorsOf(el: Element): Bloom {
    const parent = el.parent;
    return parent !== null && isTag(parent) ? this.withAncestors(parent) : NO_ANCESTORS;
  }

  /**
   * Specified values of the group's properties for an element: its inline declarations and matching
   * rules. The result may be shared with other elements: it is read, never changed.
   */
  hiding(el: Element, inline: readonly CssDeclaration[]): Computed {
    return this.compute(el, this.rules.hiding, inline);
  }

  sizing(el: Element, inline: readonly CssDeclaration[]): Computed {
    return this.compute(el, this.rules.sizing, inline);
  }

  private compute(el: Element, rules: GroupRules, inline: readonly CssDeclaration[]): Computed {
    const { decided, conditional } = rules.candidates(el.name, el.attribs, classOf(el));
    if (inline.length === 0 && conditional === null) return decided;
    let tally: Computed | null = null;
    for (const d of inline)
      offer((tally ??= { ...decided }), d.property, {
        value: d.value,
        cascade: cascadeRank(d.important ? 2 : 1, true, 0, false),
        specificity: 0,
        position: 0,
      });
    if (conditional === null) return tally ?? decided;
    const candidates = this.scratch;
    candidates.length = 0;
    for (const c of conditional.free) candidates.push(c);
    if (conditional.needsAncestors) conditional.passing(this.ancestorsOf(el), candidates);
    for (const { selector, offers } of candidates) {
      if (selector.ownAttributes !== null ? !hasAll(el, selector.ownAttributes) : !matches(selector, el)) continue;
      tally ??= { ...decided };
      for (const o of offers) offer(tally, o.property, o.winner);
    }
    return tally ?? decided;
  }
}

/** A loop, not a closure: it runs for every element a `[hidden]`-like rule may apply to. */
function hasAll(el: Element, attributes: readonly string[]): boolean {
  for (const name of attributes) if (!(name in el.attribs)) return false;
  return true;
}
