import { parse as parseSelectors, SelectorType, type Selector } from 'css-what';

/**
 * What the cascade needs to know about one selector before matching it with css-select: its
 * specificity, the id / class / tag its subject must have (the rule index's key), and the ids,
 * classes and tags its ancestors must have, as a Bloom filter (how browsers skip most descendant
 * selectors without walking up the tree; docs/analyzers.md "Accuracy rules").
 */

export type Triple = [number, number, number];

const FORGIVING = new Set(['is', 'not', 'has', 'matches', '-webkit-any', '-moz-any']);
const LEGACY_PSEUDO_ELEMENTS = new Set(['before', 'after', 'first-line', 'first-letter']);
const TRAVERSALS = new Set<string>([
  SelectorType.Adjacent,
  SelectorType.Child,
  SelectorType.Descendant,
  SelectorType.Parent,
  SelectorType.Sibling,
  SelectorType.ColumnCombinator,
]);

const larger = (x: Triple, y: Triple): Triple =>
  x[0] !== y[0] ? (x[0] > y[0] ? x : y) : x[1] !== y[1] ? (x[1] > y[1] ? x : y) : x[2] >= y[2] ? x : y;

/**
 * Selectors 4 §17: ids (a); classes, attributes, pseudo-classes (b); types, pseudo-elements (c).
 * :is(), :not(), :has() count as their most specific argument, :where() as nothing, and
 * :nth-child(An+B of S) as a pseudo-class plus S. css-what spells `#x` and `.x` with `quirks` case.
 */
export function specificityOf(selector: readonly Selector[]): Triple {
  const total: Triple = [0, 0, 0];
  const add = (t: Triple) => {
    for (let i = 0; i < 3; i++) total[i]! += t[i]!;
  };
  for (const t of selector) {
    if (t.type === SelectorType.Attribute) total[t.name === 'id' && t.ignoreCase === 'quirks' ? 0 : 1]++;
    else if (t.type === SelectorType.Tag || t.type === SelectorType.PseudoElement) total[2]++;
    else if (t.type !== SelectorType.Pseudo || t.name === 'where') continue;
    else if (FORGIVING.has(t.name) && Array.isArray(t.data))
      add(t.data.map(specificityOf).reduce(larger, [0, 0, 0] as Triple));
    else {
      total[1]++;
      const nth = typeof t.data === 'string' && /^nth-(last-)?child$/.test(t.name);
      const of = nth ? /\bof\s(.+)$/s.exec(t.data as string) : null;
      if (of)
        add(
          parseSelectors(of[1]!)
            .map(specificityOf)
            .reduce(larger, [0, 0, 0] as Triple),
        );
    }
  }
  return total;
}

/** `::before`, and the legacy one-colon spellings: they style no element of the DOM. */
export function isPseudoElement(token: Selector): boolean {
  return (
    token.type === SelectorType.PseudoElement ||
    (token.type === SelectorType.Pseudo && LEGACY_PSEUDO_ELEMENTS.has(token.name.toLowerCase()))
  );
}

export interface CompoundKeys {
  id?: string;
  cls?: string[];
  tag?: string;
}

/** The plain id, classes and tag of the compound that ends at `end` (exclusive of its combinator). */
function compoundKeys(selector: readonly Selector[], end: number): { keys: CompoundKeys; start: number } {
  const keys: CompoundKeys = {};
  let i = end;
  for (; i >= 0 && !TRAVERSALS.has(selector[i]!.type); i--) {
    const t = selector[i]!;
    if (t.type === SelectorType.Tag) keys.tag = t.name.toLowerCase();
    else if (t.type === SelectorType.Attribute && t.ignoreCase !== true && t.namespace === null) {
      if (t.name === 'id' && t.action === 'equals') keys.id = t.value;
      else if (t.name === 'class' && t.action === 'element') (keys.cls ??= []).push(t.value);
    }
  }
  return { keys, start: i };
}

/** The keys of the subject, the compound the rule styles. */
export function subjectKeys(selector: readonly Selector[]): CompoundKeys {
  return compoundKeys(selector, selector.length - 1).keys;
}

/**
 * For a selector that is one compound of a tag, an id, classes and `[attribute]` presence tests
 * (`.sm\:hidden`, `img`, `[hidden]`, `input.toggle[checked]`): the attributes it tests, which the
 * element's own attributes decide without css-select (none: its tag, id and classes alone decide).
 * Null for any other selector. `[class]` is left to css-select, which sees a script-rewritten class.
 */
export function ownAttributeTests(selector: readonly Selector[]): string[] | null {
  const tested: string[] = [];
  let ids = 0;
  for (const t of selector) {
    if ((t.type === SelectorType.Tag || t.type === SelectorType.Universal) && t.namespace === null) continue;
    if (t.type !== SelectorType.Attribute || t.namespace !== null || t.ignoreCase === true) return null;
    if (t.action === 'exists' && t.name !== 'class') tested.push(t.name);
    else if (t.name === 'id' && t.action === 'equals') ids++;
    else if (!(t.name === 'class' && t.action === 'element')) return null;
  }
  // `#a#b` names two ids, and the keys keep one: css-select decides it.
  return ids > 1 ? null : tested;
}

// ── the ancestor filter ─────────────────────────────────────────────────────────────────────────

/**
 * 256 bits, two per key: a chain of 40 ancestor keys (a deep documentation page) lets about 7 % of
 * the selectors that need an absent key through to css-select, which then rejects them. Words of 16
 * bits stay small integers, which V8 keeps unboxed.
 */
export type Bloom = number[];

export function emptyBloom(): Bloom {
  return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
}

/** FNV-1a, seeded by the kind of key (id, class, tag), so no key string is built. */
function keyHash(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const SEED = { id: 0x811c9dc5, cls: 0x050c5d1f, tag: 0x2b9c0e3a } as const;

/** Sets the key's two bits, from its hash mixed (MurmurHash3's finaliser) so that every bit of it counts. */
function setKey(bloom: Bloom, hash: number): void {
  let h = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  bloom[(h >>> 4) & 15]! |= 1 << (h & 15);
  bloom[(h >>> 12) & 15]! |= 1 << ((h >>> 8) & 15);
}

/** Adds an element's own id, classes (a list, or a class attribute read in place) and tag. */
export function addElementKeys(
  bloom: Bloom,
  id: string | undefined,
  classes: readonly string[] | string | undefined,
  tag?: string,
): void {
  if (id !== undefined) setKey(bloom, keyHash(id, SEED.id));
  if (typeof classes === 'string') addClassAttribute(bloom, classes);
  else for (const c of classes ?? []) setKey(bloom, keyHash(c, SEED.cls));
  if (tag !== undefined) setKey(bloom, keyHash(tag, SEED.tag));
}

/** keyHash of each class of a class attribute, without cutting the tokens out (no garbage per element). */
function addClassAttribute(bloom: Bloom, text: string): void {
  let h: number = SEED.cls;
  let length = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    if (code !== 32 && code !== 9 && code !== 10 && code !== 12 && code !== 13) {
      h = Math.imul(h ^ code, 16777619);
      length++;
    } else if (length > 0) {
      setKey(bloom, h >>> 0);
      h = SEED.cls;
      length = 0;
    }
  }
}

/** The words of a filter that have bits set, as (index, bits) pairs: what a selector requires of ancestors. */
export type RequiredBits = readonly number[];

/**
 * The keys that ancestors must have: those of the compounds joined to the subject by descendant or
 * child combinators only (a sibling combinator ends the chain). Null when there are none.
 */
export function ancestorBits(selector: readonly Selector[]): RequiredBits | null {
  const bloom = emptyBloom();
  let any = false;
  let end = compoundKeys(selector, selector.length - 1).start;
  while (end >= 0) {
    const combinator = selector[end]!.type;
    if (combinator !== SelectorType.Descendant && combinator !== SelectorType.Child) break;
    const { keys, start } = compoundKeys(selector, end - 1);
    if (keys.id !== undefined || keys.cls || keys.tag !== undefined) {
      addElementKeys(bloom, keys.id, keys.cls, keys.tag);
      any = true;
    }
    end = start;
  }
  return any ? bloom.flatMap((bits, i) => (bits === 0 ? [] : [i, bits])) : null;
}
