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

// ── the ancestor filter ─────────────────────────────────────────────────────────────────────────

/** 128 bits: enough that a typical chain of ancestors sets few of them. */
export type Bloom = [number, number, number, number];

/** FNV-1a, seeded by the kind of key (id, class, tag), so no key string is built. */
function keyHash(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const SEED = { id: 0x811c9dc5, cls: 0x050c5d1f, tag: 0x2b9c0e3a } as const;

function setBit(bloom: Bloom, hash: number): void {
  bloom[(hash >>> 5) & 3]! |= 1 << (hash & 31);
}

/** Adds an element's own id, classes (a list, or a class attribute read in place) and tag. */
export function addElementKeys(
  bloom: Bloom,
  id: string | undefined,
  classes: readonly string[] | string | undefined,
  tag?: string,
): void {
  if (id !== undefined) setBit(bloom, keyHash(id, SEED.id));
  if (typeof classes === 'string') addClassAttribute(bloom, classes);
  else for (const c of classes ?? []) setBit(bloom, keyHash(c, SEED.cls));
  if (tag !== undefined) setBit(bloom, keyHash(tag, SEED.tag));
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
      setBit(bloom, h >>> 0);
      h = SEED.cls;
      length = 0;
    }
  }
}

/**
 * The keys that ancestors must have: those of the compounds joined to the subject by descendant or
 * child combinators only (a sibling combinator ends the chain). Null when there are none.
 */
export function ancestorBloom(selector: readonly Selector[]): Bloom | null {
  const bloom: Bloom = [0, 0, 0, 0];
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
  return any ? bloom : null;
}

/** Whether every key the filter requires may be among the ancestors' (false: certainly not). */
export function mayHaveAncestors(required: Bloom, ancestors: Bloom): boolean {
  return (
    ((required[0] & ~ancestors[0]) |
      (required[1] & ~ancestors[1]) |
      (required[2] & ~ancestors[2]) |
      (required[3] & ~ancestors[3])) ===
    0
  );
}
