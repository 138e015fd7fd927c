import axe from 'axe-core';
import type { Element } from 'domhandler';
import { findAll, textContent } from 'domutils';
import { pageCss } from './page-css';
import { elementSubject } from './subject';
import { attr, hasAncestor, snippet, type ParsedPage } from './parse';
import { MAX_ISSUES_PER_PAGE, pageAnalyzer, pageIssues, type Issue } from './types';

/**
 * A11Y_ARIA_INVALID (docs/analyzers.md, "Browser stage"): the ARIA errors axe-core finds in markup
 * alone, judged on every crawled page as axe's rules do — aria-roles (no valid role among the tokens,
 * or an abstract role), aria-valid-attr (an unknown aria-* attribute), aria-valid-attr-value (a value
 * the attribute does not allow, an id reference to nothing), aria-required-attr (a role without the
 * attributes it requires, unless the element supplies them natively) and aria-dialog-name (a dialog
 * without a name). The role and attribute tables are axe-core's own (`axe.utils.getStandards()`), the
 * same version the browser stage runs, so the verdicts agree. Elements hidden by the page's markup or
 * CSS are not judged (axe skips hidden elements), and neither is inert `<template>` content.
 */

const STANDARDS = axe.utils.getStandards();

/** axe's attribute table; its published type omits `nmtokens` and `minValue`, which the data has. */
interface AttrSpec {
  type: string;
  values?: string[];
  allowEmpty?: boolean;
  minValue?: number;
}
const ARIA_ATTRS = STANDARDS.ariaAttrs as Readonly<Record<string, AttrSpec>>;

function lower(v: string | undefined): string {
  return (v ?? '').trim().toLowerCase();
}

function tokens(v: string | undefined): string[] {
  return (v ?? '').trim().split(/\s+/).filter(Boolean);
}

function roleType(role: string): string | undefined {
  return STANDARDS.ariaRoles[role]?.type;
}

/** axe getExplicitRole without fallback: the whole attribute must be one valid, concrete, non-DPUB role. */
export function explicitRole(el: Element): string | null {
  const role = lower(attr(el, 'role'));
  if (!role || role.startsWith('doc-')) return null;
  const type = roleType(role);
  return type && type !== 'abstract' ? role : null;
}

// ── aria-roles ───────────────────────────────────────────────────────────────────────────────────

function roleIssues(el: Element): string[] {
  const roles = tokens(attr(el, 'role')).map((r) => r.toLowerCase());
  if (roles.length === 0) return [];
  if (roles.every((r) => roleType(r) === undefined))
    return [`Role "${attr(el, 'role')!.trim()}" is not a valid ARIA role.`];
  const abstract = roles.filter((r) => roleType(r) === 'abstract');
  return abstract.length > 0
    ? [`Abstract ARIA role "${abstract.join(' ')}" used; abstract roles are not for content.`]
    : [];
}

// ── aria-valid-attr and aria-valid-attr-value ────────────────────────────────────────────────────

function validValue(spec: AttrSpec, value: string, ids: Pick<ReadonlySet<string>, 'has'>): boolean {
  if (spec.allowEmpty && value.trim() === '') return true;
  const values = spec.values ?? [];
  switch (spec.type) {
    case 'boolean':
      return value.toLowerCase() === 'true' || value.toLowerCase() === 'false';
    case 'nmtoken':
      return values.includes(value.toLowerCase());
    case 'nmtokens': {
      const list = tokens(value);
      return list.length > 0 && list.every((t) => values.includes(t));
    }
    case 'idref':
      return value !== '' && ids.has(value);
    case 'idrefs':
      return tokens(value).some((id) => ids.has(id));
    case 'string':
      return value.trim() !== '';
    case 'decimal': {
      const m = /^[-+]?([0-9]*)\.?([0-9]*)$/.exec(value);
      return m !== null && (m[1] !== '' || m[2] !== '');
    }
    case 'int':
      return /^[-+]?[0-9]+$/.test(value) && parseInt(value, 10) >= (spec.minValue ?? -Infinity);
    default:
      return true;
  }
}

/**
 * axe's pre-checks: an unresolved aria-controls or aria-owns counts only on an expanded element (a
 * collapsed menu's popup may not exist yet); aria-current, aria-describedby and aria-labelledby with
 * a bad value are left for review, not failed; aria-errormessage has a rule of its own.
 */
function countsAsInvalid(el: Element, name: string): boolean {
  if (name === 'aria-errormessage' || name === 'aria-current') return false;
  if (name === 'aria-describedby' || name === 'aria-labelledby') return false;
  if (name === 'aria-owns') return lower(attr(el, 'aria-expanded')) !== 'false';
  if (name === 'aria-controls') {
    const popup = lower(attr(el, 'aria-haspopup'));
    const hasPopup = attr(el, 'aria-haspopup') !== undefined && popup !== 'false';
    return lower(attr(el, 'aria-expanded')) !== 'false' && lower(attr(el, 'aria-selected')) !== 'false' && !hasPopup;
  }
  return true;
}

/** [attribute name, message] of each invalid aria-* attribute. */
function attributeIssues(el: Element, ids: Pick<ReadonlySet<string>, 'has'>): [string, string][] {
  const issues: [string, string][] = [];
  for (const [name, raw] of Object.entries(el.attribs)) {
    if (!name.startsWith('aria-')) continue;
    const spec = ARIA_ATTRS[name];
    if (!spec) {
      issues.push([name, `Unknown ARIA attribute ${name}.`]);
      continue;
    }
    const value = spec.type === 'string' ? raw : raw.trim();
    if (validValue(spec, value, ids) || !countsAsInvalid(el, name)) continue;
    // An empty value of a non-text attribute is left for review by axe, not failed.
    if (value === '' && spec.type !== 'string') continue;
    issues.push([
      name,
      spec.type === 'idref' || spec.type === 'idrefs'
        ? `${name}="${raw}" refers to no element of the page.`
        : `${name}="${raw}" is not an allowed value.`,
    ]);
  }
  return issues;
}

// ── aria-required-attr ───────────────────────────────────────────────────────────────────────────

interface VariantMatch {
  properties?: Record<string, string | string[]>;
  attributes?: Record<string, string | null | (string | null)[]>;
}

/** axe's variant `matches`: element properties (an input's type) and attributes (null: absent, /re/). */
function variantMatches(el: Element, m: VariantMatch): boolean {
  for (const [k, want] of Object.entries(m))
    if (k !== 'properties' && k !== 'attributes' && want !== undefined) return false;
  for (const [name, want] of Object.entries(m.properties ?? {})) {
    const actual = lower(attr(el, name)) || (name === 'type' && el.name === 'input' ? 'text' : '');
    if (!(Array.isArray(want) ? want : [want]).includes(actual)) return false;
  }
  for (const [name, want] of Object.entries(m.attributes ?? {})) {
    const actual = attr(el, name) ?? null;
    const ok = (w: string | null) =>
      w === null
        ? actual === null
        : /^\/.*\/$/.test(w)
          ? actual !== null && new RegExp(w.slice(1, -1)).test(actual)
          : w === actual;
    if (!(Array.isArray(want) ? want : [want]).some(ok)) return false;
  }
  return true;
}

/**
 * Attributes the element has natively (a checkbox input's aria-checked, an h2's aria-level), as axe's
 * getElementSpec resolves them: matching variants override the element's own, the default variant
 * fills in what is still unset.
 */
function implicitAttrs(el: Element): Set<string> {
  const spec = STANDARDS.htmlElms[el.name];
  let implicit = spec?.implicitAttrs;
  for (const [name, variant] of Object.entries(spec?.variant ?? {})) {
    const m = (variant as { matches?: VariantMatch | VariantMatch[] }).matches;
    if (name === 'default' || m === undefined || !variant.implicitAttrs) continue;
    if ((Array.isArray(m) ? m : [m]).some((one) => variantMatches(el, one))) implicit = variant.implicitAttrs;
  }
  implicit ??= spec?.variant?.default?.implicitAttrs;
  return new Set(Object.keys(implicit ?? {}));
}

const NATIVELY_FOCUSABLE = new Set(['button', 'input', 'select', 'textarea', 'summary', 'iframe']);

function focusable(el: Element): boolean {
  if (attr(el, 'disabled') !== undefined) return false;
  if (attr(el, 'tabindex') !== undefined) return true;
  return NATIVELY_FOCUSABLE.has(el.name) || (el.name === 'a' && attr(el, 'href') !== undefined);
}

function requiredAttrIssues(el: Element): string[] {
  const role = explicitRole(el);
  const required = role ? (STANDARDS.ariaRoles[role]?.requiredAttrs ?? []) : [];
  if (!role || required.length === 0) return [];
  // axe's exceptions: a static separator, a collapsed combobox, a slider with aria-valuetext.
  if (role === 'separator' && !focusable(el)) return [];
  if (role === 'combobox' && lower(attr(el, 'aria-expanded')) === 'false') return [];
  if (role === 'slider' && (attr(el, 'aria-valuetext') ?? '').trim() !== '') return [];
  const native = implicitAttrs(el);
  const missing = required.filter((a) => (attr(el, a) ?? '').trim() === '' && !native.has(a));
  if (missing.length === 0) return [];
  const s = missing.length === 1 ? '' : 's';
  return [`An element with role="${role}" lacks the required attribute${s} ${missing.join(', ')}.`];
}

// ── aria-dialog-name ─────────────────────────────────────────────────────────────────────────────

function dialogNameIssues(el: Element, byId: Pick<ReadonlyMap<string, Element>, 'get'>): string[] {
  const role = attr(el, 'role');
  if (role !== 'dialog' && role !== 'alertdialog') return [];
  if ((attr(el, 'aria-label') ?? '').trim() !== '' || (attr(el, 'title') ?? '').trim() !== '') return [];
  const labelled = tokens(attr(el, 'aria-labelledby')).some((id) => {
    const target = byId.get(id);
    return target !== undefined && (textContent(target).trim() !== '' || (attr(target, 'aria-label') ?? '').trim());
  });
  if (labelled) return [];
  return [`A ${role} has no accessible name (no aria-label, aria-labelledby or title).`];
}

// ── the analyzer ─────────────────────────────────────────────────────────────────────────────────

function hasRoleOrAria(el: Element): boolean {
  for (const name in el.attribs) if (name === 'role' || name.startsWith('aria-')) return true;
  return false;
}

const ARIA_ELEMENTS = new WeakMap<ParsedPage, Element[]>();

/** The page's elements with a role or an aria-* attribute, in document order (one walk per page). */
export function ariaElements(p: ParsedPage): readonly Element[] {
  let list = ARIA_ELEMENTS.get(p);
  if (!list) ARIA_ELEMENTS.set(p, (list = p.doc ? findAll(hasRoleOrAria, p.doc.children) : []));
  return list;
}

/** The page's ids (first element of each), indexed only when an id reference must be resolved. */
function idIndex(p: ParsedPage): ReadonlyMap<string, Element> {
  const byId = new Map<string, Element>();
  for (const el of findAll((e) => e.attribs.id !== undefined, p.doc!.children))
    if (!byId.has(el.attribs.id!)) byId.set(el.attribs.id!, el);
  return byId;
}

function ariaIssues(p: ParsedPage): Issue[] {
  let byId: ReadonlyMap<string, Element> | undefined;
  const ids = {
    get: (id: string) => (byId ??= idIndex(p)).get(id),
    has: (id: string) => (byId ??= idIndex(p)).has(id),
  };
  const css = pageCss(p);
  const issues: Issue[] = [];
  for (const el of ariaElements(p)) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    if (css.isHidden(el) || hasAncestor(el, 'template')) continue;
    // Subject: axe's rule (with the attribute for per-attribute rules) and the element's identity.
    const found: [string, string[]][] = [
      ['aria-roles', roleIssues(el)],
      ...attributeIssues(el, ids).map(([name, m]): [string, string[]] => [`aria-valid-attr ${name}`, [m]]),
      ['aria-required-attr', requiredAttrIssues(el)],
      ['aria-dialog-name', dialogNameIssues(el, ids)],
    ];
    const subject = elementSubject(el, p.url);
    for (const [rule, messages] of found)
      for (const message of messages)
        issues.push({ outcome: 'fail', message, evidence: snippet(p, el), subject: `${rule} ${subject}` });
  }
  return issues.slice(0, MAX_ISSUES_PER_PAGE);
}

export const ariaInvalid = pageAnalyzer('A11Y_ARIA_INVALID', (p) => {
  if (!p.isHtml || !p.doc) return null;
  return pageIssues(ariaIssues(p));
});
