import { textContent } from 'domutils';
import type { Element } from 'domhandler';
import { attr, hasAncestor, snippet, truncate, type ParsedPage } from './parse';
import { titleText } from './seo-page';
import { headerValues } from './snapshot';
import { isAbsoluteHttpUrl, normalizeUrl, pageStatusIndex } from './site-util';
import {
  EVIDENCE_MAX, PAGE_PASS, defineAnalyzer, pageAnalyzer, pageIssues, perPage, type Analyzer, type Issue, type PageResult,
} from './types';

/** SEO checks of titles across pages, canonical and hreflang links, anchors and structured data. */

const MAX_ISSUES_PER_PAGE = 20;

function relTokens(el: Element): string[] {
  return (attr(el, 'rel') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** The page's own URLs (as requested and as served), normalized. */
function ownUrls(p: { url: string; page: { url: string } }): string[] {
  return [normalizeUrl(p.url), normalizeUrl(p.page.url)].filter((u): u is string => u !== null);
}

// ── SEO_TITLE_DUPLICATE ──────────────────────────────────────────────────────────────────────────

export const TITLE_MIN_CHARS = 30;
export const TITLE_MAX_CHARS = 60;

interface TitleObservation {
  title: string;
  /** Pages declaring the same canonical are one document for search engines: their titles may match. */
  key: string;
}

function firstCanonical(p: ParsedPage): string | null {
  const link = p.elements('link').find((l) => relTokens(l).includes('canonical') && (attr(l, 'href') ?? '').trim() !== '');
  return link ? normalizeUrl(attr(link, 'href')!, p.url) : null;
}

/** A title shared by distinct pages fails; a unique title outside 30–60 characters warns. */
export const titleDuplicate = defineAnalyzer<TitleObservation | null>({
  code: 'SEO_TITLE_DUPLICATE',
  observe(p) {
    if (!p.isHtml) return null;
    const title = titleText(p);
    if (title === null || title === '') return null; // SEO_TITLE_MISSING reports it
    return { title, key: firstCanonical(p) ?? normalizeUrl(p.url) ?? p.url };
  },
  finish(_s, observed) {
    const keysByTitle = new Map<string, Set<string>>();
    for (const o of observed) {
      if (!o.value) continue;
      const set = keysByTitle.get(o.value.title) ?? new Set<string>();
      set.add(o.value.key);
      keysByTitle.set(o.value.title, set);
    }
    return perPage(observed, ({ value: t }) => {
      if (!t) return null;
      const issues: Issue[] = [];
      const evidence = truncate(`<title>${t.title}</title>`, EVIDENCE_MAX);
      const shared = keysByTitle.get(t.title)!.size;
      if (shared > 1) issues.push({ outcome: 'fail', message: `The same title is used on ${shared} different pages.`, evidence });
      const length = [...t.title].length;
      if (length < TITLE_MIN_CHARS) issues.push({ outcome: 'warn', message: `The title is only ${length} characters long (under ${TITLE_MIN_CHARS}).`, evidence });
      else if (length > TITLE_MAX_CHARS) issues.push({ outcome: 'warn', message: `The title is ${length} characters long (over ${TITLE_MAX_CHARS}), so search results cut it off.`, evidence });
      return pageIssues(issues);
    });
  },
});

// ── SEO_CANONICAL_INVALID ────────────────────────────────────────────────────────────────────────

interface CanonicalObservation {
  /** Problems visible on the page itself. */
  issues: Issue[];
  /** The single resolved canonical URL when the page has one consistent canonical. */
  target: string | null;
  targetEvidence: string;
}

/** `<url>; rel="canonical"` entries of Link headers. */
export function linkHeaderCanonicals(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    for (const m of v.matchAll(/<([^>]*)>([^<]*)/g)) {
      const params = m[2]!.toLowerCase();
      if (/;\s*rel\s*=\s*"?[^";,]*\bcanonical\b/.test(params)) out.push(m[1]!);
    }
  }
  return out;
}

function pathOf(url: string): string | null {
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
}

export const canonicalInvalid = defineAnalyzer<CanonicalObservation | null>({
  code: 'SEO_CANONICAL_INVALID',
  observe(p) {
    if (!p.isHtml) return null;
    const declared: { raw: string; evidence: string }[] = [];
    for (const l of p.elements('link')) {
      if (relTokens(l).includes('canonical')) declared.push({ raw: attr(l, 'href') ?? '', evidence: snippet(p, l) });
      if (declared.length >= 10) break;
    }
    for (const raw of linkHeaderCanonicals(headerValues(p.page.headers, 'link'))) declared.push({ raw, evidence: truncate(`Link: <${raw}>; rel="canonical"`, EVIDENCE_MAX) });
    if (declared.length === 0) return null; // no canonical: nothing to validate
    const issues: Issue[] = [];
    const resolved = new Set<string>();
    for (const d of declared) {
      const url = d.raw.trim() === '' ? null : normalizeUrl(d.raw, p.url);
      if (url === null) {
        issues.push({ outcome: 'fail', message: 'The canonical link has an empty or invalid URL.', evidence: d.evidence });
        continue;
      }
      resolved.add(url);
      if (!isAbsoluteHttpUrl(d.raw)) issues.push({ outcome: 'fail', message: 'The canonical link uses a relative URL instead of an absolute one.', evidence: d.evidence });
    }
    if (resolved.size > 1) {
      issues.push({ outcome: 'fail', message: `The page declares ${resolved.size} conflicting canonical URLs.`, evidence: truncate(declared.map((d) => d.evidence).join(' | '), EVIDENCE_MAX) });
    }
    const target = resolved.size === 1 ? [...resolved][0]! : null;
    const ownPath = pathOf(p.url);
    if (target !== null && ownPath !== null) {
      if (pathOf(target) === '/' && new URL(target).search === '' && ownPath !== '/') {
        issues.push({ outcome: 'fail', message: 'The canonical link of an inner page points to the home page, so search engines may drop the page.', evidence: declared[0]!.evidence });
      }
    }
    return { issues, target, targetEvidence: declared[0]!.evidence };
  },
  finish(snapshot, observed) {
    const statuses = pageStatusIndex(snapshot.pages);
    for (const c of snapshot.linkChecks ?? []) {
      const u = normalizeUrl(c.url);
      if (u !== null && c.status !== null && !statuses.has(u)) statuses.set(u, { status: c.status });
    }
    return perPage(observed, ({ value: c }) => {
      if (!c) return null;
      const issues = [...c.issues];
      const s = c.target !== null ? statuses.get(c.target) : undefined;
      if (s && s.status !== 200) {
        issues.push({
          outcome: 'fail',
          message: s.redirectsTo ? `The canonical URL redirects (HTTP ${s.status}) instead of answering 200.` : `The canonical URL answers HTTP ${s.status} instead of 200.`,
          evidence: truncate(`${c.targetEvidence} → HTTP ${s.status}${s.redirectsTo ? ` to ${s.redirectsTo}` : ''}`, EVIDENCE_MAX),
        });
      }
      return pageIssues(issues);
    });
  },
});

// ── SEO_HREFLANG_INVALID ─────────────────────────────────────────────────────────────────────────

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const langCache = new Map<string, boolean>();

/**
 * hreflang values search engines accept: `x-default`, or an ISO 639 language with an optional ISO
 * 15924 script and ISO 3166-1 region (en, en-GB, zh-Hant-TW, es-419). "en_US", "en-UK", "english" fail.
 */
export function isValidHreflang(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'x-default') return true;
  const cached = langCache.get(v);
  if (cached !== undefined) return cached;
  let ok = false;
  const m = /^([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|\d{3}))?$/.exec(v);
  if (m && m[3] !== 'uk' && m[3] !== 'zz') {
    try {
      ok = languageNames.of(m[1]!) !== undefined && (m[3] === undefined || regionNames.of(m[3].toUpperCase()) !== undefined);
    } catch {
      ok = false;
    }
  }
  if (langCache.size < 10_000) langCache.set(v, ok);
  return ok;
}

interface HreflangObservation {
  issues: Issue[];
  /** Resolved alternate URLs with their evidence. */
  alternates: { url: string; evidence: string }[];
}

const MAX_HREFLANG = 300;

export const hreflangInvalid = defineAnalyzer<HreflangObservation | null>({
  code: 'SEO_HREFLANG_INVALID',
  observe(p) {
    if (!p.isHtml) return null;
    const links = p.elements('link').filter((l) => attr(l, 'hreflang') !== undefined && relTokens(l).includes('alternate'));
    if (links.length === 0) return null;
    const issues: Issue[] = [];
    const alternates: HreflangObservation['alternates'] = [];
    for (const l of links.slice(0, MAX_HREFLANG)) {
      const lang = attr(l, 'hreflang')!;
      const href = attr(l, 'href') ?? '';
      const evidence = snippet(p, l);
      if (issues.length < MAX_ISSUES_PER_PAGE && !isValidHreflang(lang)) issues.push({ outcome: 'fail', message: `"${truncate(lang, 40)}" is not a valid hreflang language code.`, evidence });
      if (!isAbsoluteHttpUrl(href)) {
        if (issues.length < MAX_ISSUES_PER_PAGE) issues.push({ outcome: 'fail', message: 'An hreflang link does not use an absolute URL.', evidence });
        continue;
      }
      const url = normalizeUrl(href);
      if (url !== null) alternates.push({ url, evidence });
    }
    return { issues, alternates };
  },
  finish(_s, observed) {
    // Which URLs each crawled page names as alternates (pages are known by requested and final URL).
    const namedBy = new Map<string, Set<string> | null>();
    for (const o of observed) {
      if (!o.isHtml) continue;
      const set = o.value ? new Set(o.value.alternates.map((a) => a.url)) : null;
      for (const u of ownUrls(o)) if (!namedBy.has(u)) namedBy.set(u, set);
    }
    return perPage(observed, (o) => {
      const h = o.value;
      if (!h) return null;
      const issues = [...h.issues];
      const own = ownUrls(o);
      for (const a of h.alternates) {
        if (issues.length >= MAX_ISSUES_PER_PAGE) break;
        if (own.includes(a.url) || !namedBy.has(a.url)) continue; // self-reference, or not crawled: cannot tell
        const back = namedBy.get(a.url);
        if (!back || !own.some((u) => back.has(u))) {
          issues.push({ outcome: 'fail', message: 'An alternate language version does not link back to this page (no return hreflang link).', evidence: a.evidence });
        }
      }
      return pageIssues(issues);
    });
  },
});

// ── SEO_LINK_TEXT_GENERIC ────────────────────────────────────────────────────────────────────────

/** Lighthouse link-text's English list, plus a few common variants. */
export const GENERIC_LINK_TEXTS: ReadonlySet<string> = new Set([
  'click here', 'click this', 'click', 'go', 'here', 'information', 'learn more', 'more', 'more info', 'more information',
  'right here', 'read more', 'see more', 'start', 'this', 'continue', 'continue reading', 'details', 'find out more',
  'link', 'read on', 'this page', 'this link',
]);

/** Lower-cased, whitespace collapsed, surrounding punctuation and arrows ("Read more »", "here.") removed. */
export function normalizeLinkText(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
}

function isNavigableHref(href: string | undefined): href is string {
  if (href === undefined) return false;
  const h = href.trim();
  return h !== '' && !h.startsWith('#') && !/^javascript:/i.test(h);
}

export const linkTextGeneric = pageAnalyzer('SEO_LINK_TEXT_GENERIC', (p) => {
  if (!p.isHtml) return null;
  const issues: Issue[] = [];
  let links = 0;
  for (const a of p.elements('a')) {
    if (!isNavigableHref(attr(a, 'href'))) continue;
    links++;
    if (issues.length >= MAX_ISSUES_PER_PAGE) continue;
    const label = (attr(a, 'aria-label') ?? '').trim();
    const text = normalizeLinkText(label !== '' ? label : textContent(a));
    if (GENERIC_LINK_TEXTS.has(text)) issues.push({ outcome: 'fail', message: `A link's text is just "${text}", which does not say where it leads.`, evidence: snippet(p, a) });
  }
  if (links === 0) return null;
  return pageIssues(issues);
});

// ── SEO_ANCHOR_NOT_CRAWLABLE ─────────────────────────────────────────────────────────────────────

/** Roles that declare the anchor is not a link (Lighthouse crawlable-anchors ignores them). */
const NON_LINK_ROLES = /^(button|tab|menuitem|menuitemcheckbox|menuitemradio|option|switch|checkbox|radio|treeitem|presentation|none)$/;

/** Why an anchor cannot be followed by a crawler, or null when it is fine (or not meant as a link). */
export function anchorProblem(a: Element): string | null {
  if (hasAncestor(a, 'svg')) return null;
  const role = (attr(a, 'role') ?? '').trim().toLowerCase();
  if (NON_LINK_ROLES.test(role)) return null;
  const href = attr(a, 'href');
  const onclick = attr(a, 'onclick') ?? '';
  if (href === undefined) {
    if (attr(a, 'name') !== undefined) return null; // a named jump target, not a link
    if (attr(a, 'id') !== undefined && textContent(a).trim() === '') return null;
    return 'has no href';
  }
  const h = href.trim();
  if (/^javascript:/i.test(h)) return 'uses a javascript: URL';
  if ((h === '' || h === '#') && /window\.(location|open)\b|location\.href\s*=/.test(onclick)) return 'navigates with a script instead of an href';
  return null;
}

export const anchorNotCrawlable = pageAnalyzer('SEO_ANCHOR_NOT_CRAWLABLE', (p) => {
  if (!p.isHtml) return null;
  const anchors = p.elements('a');
  if (anchors.length === 0) return null;
  const issues: Issue[] = [];
  for (const a of anchors) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    const problem = anchorProblem(a);
    if (problem) issues.push({ outcome: 'fail', message: `A link ${problem}, so crawlers cannot follow it.`, evidence: snippet(p, a) });
  }
  return pageIssues(issues);
});

// ── SEO_STRUCTURED_DATA_INVALID ──────────────────────────────────────────────────────────────────

/** A JSON-LD item needs an @type; a top-level array or @graph holds items. Nested values need none. */
export function jsonLdMissingType(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0 || value.some(jsonLdMissingType);
  if (value === null || typeof value !== 'object') return true;
  const obj = value as Record<string, unknown>;
  if (Array.isArray(obj['@graph'])) return obj['@graph'].length === 0 || obj['@graph'].some(jsonLdMissingType);
  const t = obj['@type'];
  return !(typeof t === 'string' ? t.trim() !== '' : Array.isArray(t) && t.length > 0);
}

function isJsonLd(script: Element): boolean {
  return (attr(script, 'type') ?? '').split(';')[0]!.trim().toLowerCase() === 'application/ld+json';
}

export const structuredDataInvalid = pageAnalyzer('SEO_STRUCTURED_DATA_INVALID', (p): PageResult | null => {
  if (!p.isHtml) return null;
  const blocks = p.elements('script').filter(isJsonLd);
  if (blocks.length === 0) return null;
  const issues: Issue[] = [];
  for (const s of blocks.slice(0, MAX_ISSUES_PER_PAGE)) {
    const text = textContent(s).trim();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      const reason = text === '' ? 'it is empty' : (e as Error).message;
      issues.push({ outcome: 'fail', message: 'A JSON-LD block is not valid JSON.', evidence: truncate(`${truncate(reason, 80)}: ${snippet(p, s, 200)}`, EVIDENCE_MAX) });
      continue;
    }
    if (jsonLdMissingType(data)) issues.push({ outcome: 'fail', message: 'A JSON-LD item has no @type.', evidence: snippet(p, s) });
  }
  return issues.length === 0 ? PAGE_PASS : pageIssues(issues);
});

export const SEO_LINK_ANALYZERS: readonly Analyzer[] = [
  titleDuplicate, canonicalInvalid, hreflangInvalid, linkTextGeneric, anchorNotCrawlable, structuredDataInvalid,
];

