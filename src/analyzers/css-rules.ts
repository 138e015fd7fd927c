import { AncestorFiltered } from './css-ancestor-filter';
import type { CascadeProperty, ParsedSheet, RuleIndex, SelectorInfo, StyleEntry } from './css-sheet';
import type { CompoundKeys } from './css-selector';

/**
 * The rules of one list of stylesheets that can style an element, by the element's signature (its
 * tag, id, classes, and which of the attributes that `[attribute]` rules test it has): found through
 * the sheets' rule indexes once per signature, and shared by every page of the analysis that has the
 * same sheets, since a site's pages repeat their templates. Rules whose selector the signature
 * decides (`.hidden`, `img`, `[hidden]`) are folded into a result worked out once; the others are
 * matched element by element, behind the ancestors' Bloom filter (docs/analyzers.md "Accuracy rules").
 */

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
export const NOTHING: Computed = Object.freeze({});

export type PropertyGroup = 'hiding' | 'sizing';

/** A rule's selector with the declarations it brings, ranked for this list of sheets. */
export interface Candidate {
  readonly selector: SelectorInfo;
  readonly offers: readonly { readonly property: CascadeProperty; readonly winner: Winner }[];
}

/** For one signature: what the plain rules decide, and the rules still to match element by element (null: none). */
export interface Candidates {
  readonly decided: Computed;
  readonly conditional: AncestorFiltered<Candidate> | null;
}

const LAYER_SPAN = 2 ** 20;

/**
 * Origin and importance (user-agent normal < author normal < author !important < user-agent
 * !important), then inline style, then the layer: important declarations of earlier layers beat
 * those of later layers and of unlayered styles.
 */
export function cascadeRank(tier: number, inline: boolean, layer: number, important: boolean): number {
  return (tier * 2 + (inline ? 1 : 0)) * 2 * LAYER_SPAN + (important ? -layer : layer) + LAYER_SPAN;
}

/** Keeps `candidate` when it outranks the current winner (an equal rank: the later declaration wins). */
export function offer(out: Computed, property: CascadeProperty, candidate: Winner): void {
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

/** Signatures kept per group before the memo starts again (a bound on memory, not a limit on pages). */
const SIGNATURES_KEPT = 20_000;
/** `[attribute]` tests folded into the signature, per group (`[hidden]`, `[open]`…); more are matched one by one. */
const TESTED_KEPT = 8;
const CLASS_SEPARATOR = /[ \t\n\f\r]+/;

/** The rules of one list of sheets, for the hiding and the sizing properties. */
export class CascadeRules {
  readonly hiding: GroupRules;
  readonly sizing: GroupRules;

  constructor(sheets: readonly ParsedSheet[]) {
    const ranking = new Ranking(sheets);
    this.hiding = new GroupRules(sheets, 'hiding', ranking);
    this.sizing = new GroupRules(sheets, 'sizing', ranking);
  }
}

/** Each rule's declarations ranked once for the list of sheets (its layer and position depend on it). */
class Ranking {
  /** Layer name → rank (later layers higher); unlayered styles rank above every layer. */
  private readonly layerRanks: Map<string, number>;
  private readonly unlayered: number;
  /** Per sheet position, each entry ranked once. */
  private readonly ranked: Map<StyleEntry, Candidate>[];

  constructor(private readonly sheets: readonly ParsedSheet[]) {
    this.layerRanks = layerRanks(sheets);
    this.unlayered = this.layerRanks.size;
    this.ranked = sheets.map(() => new Map());
  }

  rank(entry: StyleEntry, s: number): Candidate {
    let candidate = this.ranked[s]!.get(entry);
    if (!candidate) {
      const sheet = this.sheets[s]!;
      const layer = entry.layer === null ? this.unlayered : (this.layerRanks.get(entry.layer) ?? this.unlayered);
      const { specificity } = entry.selector;
      const position = s * 2 ** 24 + entry.order;
      const offers = entry.declarations.map((d) => {
        const tier = sheet.origin === 'author' ? (d.important ? 2 : 1) : d.important ? 3 : 0;
        const cascade = cascadeRank(tier, false, layer, d.important);
        return { property: d.property, winner: { value: d.value, cascade, specificity, position } };
      });
      this.ranked[s]!.set(entry, (candidate = { selector: entry.selector, offers }));
    }
    return candidate;
  }
}

/** The rules of one property group, by element signature. */
export class GroupRules {
  /** By tag and class attribute, for an element with no id a rule names and none of the tested attributes. */
  private readonly memo = new Map<string, Map<string, Candidates>>();
  /** The others: by id (or ''), tag, class attribute, then which tested attributes it has (a bit mask). */
  private readonly otherMemo = new Map<string, Map<string, Map<string, Candidates[]>>>();
  private signatures = 0;
  /** The attributes that `[attribute]` tests of plain compounds name (at most TESTED_KEPT). */
  private readonly tested: string[];
  /** The ids some rule's subject names. */
  private readonly ruleIds: Set<string>;

  constructor(
    private readonly sheets: readonly ParsedSheet[],
    private readonly group: PropertyGroup,
    private readonly ranking: Ranking,
  ) {
    this.ruleIds = new Set(sheets.flatMap((s) => [...s[group].byId.keys()]));
    this.tested = testedAttributes(sheets, group);
  }

  candidates(tag: string, attributes: Record<string, string>, classAttr = ''): Candidates {
    // An id no rule names cannot tell elements apart: leaving it out keeps signatures few. Nested
    // maps, so that no key string is built per element.
    const { id } = attributes;
    const knownId = id !== undefined && this.ruleIds.has(id) ? id : undefined;
    let has = 0;
    for (let i = 0; i < this.tested.length; i++) if (this.tested[i]! in attributes) has |= 1 << i;
    if (knownId === undefined && has === 0) {
      const byClass = nested(this.memo, tag);
      let found = byClass.get(classAttr);
      if (!found) byClass.set(classAttr, (found = this.collect(tag, undefined, classAttr, 0)));
      return found;
    }
    const byHas = nested(nested(this.otherMemo, knownId ?? ''), tag);
    let byTested = byHas.get(classAttr);
    if (!byTested) byHas.set(classAttr, (byTested = []));
    return (byTested[has] ??= this.collect(tag, knownId, classAttr, has));
  }

  private collect(tag: string, id: string | undefined, classAttr: string, has: number): Candidates {
    if (this.signatures++ >= SIGNATURES_KEPT) {
      this.memo.clear();
      this.otherMemo.clear();
      this.signatures = 0;
    }
    const tested = this.tested;
    /** Whether the tested attributes say the rule matches (true), cannot (false), or cannot tell (null). */
    const byAttributes = (names: readonly string[]): boolean | null => {
      let result: boolean | null = true;
      for (const name of names) {
        const i = tested.indexOf(name);
        if (i < 0) result = result && null;
        else if ((has & (1 << i)) === 0) return false;
      }
      return result;
    };
    const classes = new Set(classAttr.split(CLASS_SEPARATOR).filter((c) => c !== ''));
    const fits = (keys: CompoundKeys) =>
      (keys.tag === undefined || keys.tag === tag) &&
      (keys.id === undefined || keys.id === id) &&
      (keys.cls === undefined || keys.cls.every((c) => classes.has(c)));
    const decided: Computed = {};
    const conditional: Candidate[] = [];
    const consider = (entries: readonly StyleEntry[] | undefined, s: number) => {
      for (const entry of entries ?? []) {
        if (!fits(entry.selector.subject)) continue; // a key of its own the element lacks: it never matches
        const { ownAttributes } = entry.selector;
        const decides = ownAttributes === null ? null : byAttributes(ownAttributes);
        if (decides === false) continue;
        const candidate = this.ranking.rank(entry, s);
        if (decides === null) conditional.push(candidate);
        else for (const o of candidate.offers) offer(decided, o.property, o.winner);
      }
    };
    this.sheets.forEach((sheet, s) => {
      const index: RuleIndex = sheet[this.group];
      if (index.size === 0) return;
      if (id !== undefined) consider(index.byId.get(id), s);
      for (const c of classes) consider(index.byClass.get(c), s);
      consider(index.byTag.get(tag), s);
      consider(index.rest, s);
    });
    const filtered = new AncestorFiltered(conditional.map((c) => ({ rule: c, required: c.selector.ancestors })));
    let any = false;
    for (const _ in decided) any = true;
    return { decided: any ? decided : NOTHING, conditional: conditional.length > 0 ? filtered : null };
  }
}

/** The attributes that `[attribute]` tests of one-compound selectors name, the first TESTED_KEPT of them. */
function testedAttributes(sheets: readonly ParsedSheet[], group: PropertyGroup): string[] {
  const names = new Set<string>();
  for (const sheet of sheets) {
    const { byId, byClass, byTag, rest } = sheet[group];
    for (const entries of [...byId.values(), ...byClass.values(), ...byTag.values(), rest])
      for (const { selector } of entries) for (const name of selector.ownAttributes ?? []) names.add(name);
  }
  return [...names].slice(0, TESTED_KEPT);
}

/** The inner map under `key`, made when missing. */
function nested<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = map.get(key);
  if (!inner) map.set(key, (inner = new Map()));
  return inner;
}

/** The latest lists of sheets, with their rules: pages that share a template share one. */
const recentRules = new Map<string, CascadeRules>();
const RULES_KEPT = 16;

export function cascadeRules(sheets: readonly ParsedSheet[]): CascadeRules {
  const key = sheets.map((s) => s.id).join(',');
  let rules = recentRules.get(key);
  if (rules) {
    recentRules.delete(key); // most recently used last
  } else {
    rules = new CascadeRules(sheets);
    if (recentRules.size >= RULES_KEPT) recentRules.delete(recentRules.keys().next().value!);
  }
  recentRules.set(key, rules);
  return rules;
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
