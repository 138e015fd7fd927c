import type { Element } from 'domhandler';
import { attr, snippet, truncate, type ParsedPage } from './parse';
import { anchorNotCrawlable, linkTextGeneric } from './seo-anchors';
import { headerValues, type CrawlSnapshot, type IndexAlias } from './snapshot';
import { isAbsoluteHttpUrl, knownUrlStatuses, normalizeUrl } from './site-util';
import { resourceSubject } from './subject';
import {
  EVIDENCE_MAX,
  MAX_ISSUES_PER_PAGE,
  defineAnalyzer,
  pageIssues,
  perPage,
  type Analyzer,
  type Issue,
} from './types';

/** SEO checks of links: canonical and hreflang <link>s here, <a> anchors in seo-anchors.ts. */

function relTokens(el: Element): string[] {
  return (attr(el, 'rel') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** The page's own URLs (as requested and as served), normalized. */
function ownUrls(p: { url: string; page: { url: string } }): string[] {
  return [normalizeUrl(p.url), normalizeUrl(p.page.url)].filter((u): u is string => u !== null);
}

/** The page's canonical URL (first non-empty <link rel=canonical>), resolved and normalized. */
export function firstCanonical(p: ParsedPage): string | null {
  const link = p
    .elements('link')
    .find((l) => relTokens(l).includes('canonical') && (attr(l, 'href') ?? '').trim() !== '');
  return link ? normalizeUrl(attr(link, 'href')!, p.url) : null;
}

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
    for (const raw of linkHeaderCanonicals(headerValues(p.page.headers, 'link')))
      declared.push({ raw, evidence: truncate(`Link: <${raw}>; rel="canonical"`, EVIDENCE_MAX) });
    if (declared.length === 0) return null; // no canonical: nothing to validate
    const issues: Issue[] = [];
    const resolved = new Set<string>();
    for (const d of declared) {
      const url = d.raw.trim() === '' ? null : normalizeUrl(d.raw, p.url);
      if (url === null) {
        issues.push({
          outcome: 'fail',
          message: 'The canonical link has an empty or invalid URL.',
          evidence: d.evidence,
          subject: `invalid ${d.raw.trim()}`,
        });
        continue;
      }
      resolved.add(url);
      if (!isAbsoluteHttpUrl(d.raw))
        issues.push({
          outcome: 'fail',
          message: 'The canonical link uses a relative URL instead of an absolute one.',
          evidence: d.evidence,
          subject: `relative ${d.raw.trim()}`,
        });
    }
    if (resolved.size > 1) {
      issues.push({
        outcome: 'fail',
        message: `The page declares ${resolved.size} conflicting canonical URLs.`,
        evidence: truncate(declared.map((d) => d.evidence).join(' | '), EVIDENCE_MAX),
        subject: 'conflicting',
      });
    }
    const target = resolved.size === 1 ? [...resolved][0]! : null;
    const ownPath = pathOf(p.url);
    if (target !== null && ownPath !== null) {
      if (pathOf(target) === '/' && new URL(target).search === '' && ownPath !== '/') {
        issues.push({
          outcome: 'fail',
          message: 'The canonical link of an inner page points to the home page, so search engines may drop the page.',
          evidence: declared[0]!.evidence,
          subject: 'home page',
        });
      }
    }
    return { issues, target, targetEvidence: declared[0]!.evidence };
  },
  finish(snapshot, observed) {
    const statuses = knownUrlStatuses(snapshot);
    const aliases = aliasesByPage(snapshot);
    return perPage(observed, ({ value: c, page, isHtml }) => {
      const alias = isHtml ? aliases.get(normalizeUrl(page.url) ?? page.url) : undefined;
      if (!c) return alias ? pageIssues([aliasWithoutCanonical(alias)]) : null;
      const issues = [...c.issues];
      const s = c.target !== null ? statuses.get(c.target) : undefined;
      if (s && s.status !== 200) {
        issues.push({
          outcome: 'fail',
          message: s.redirectsTo
            ? `The canonical URL redirects (HTTP ${s.status}) instead of answering 200.`
            : `The canonical URL answers HTTP ${s.status} instead of 200.`,
          evidence: truncate(
            `${c.targetEvidence} → HTTP ${s.status}${s.redirectsTo ? ` to ${s.redirectsTo}` : ''}`,
            EVIDENCE_MAX,
          ),
          subject: `target ${resourceSubject(c.target!, page.url)}`,
        });
      }
      return pageIssues(issues);
    });
  },
});

/** Crawled page URL (normalized) → a second URL of it that the site links to. */
function aliasesByPage(snapshot: CrawlSnapshot): Map<string, IndexAlias> {
  const out = new Map<string, IndexAlias>();
  for (const a of snapshot.indexAliases ?? []) out.set(normalizeUrl(a.aliasOf) ?? a.aliasOf, a);
  return out;
}

/** Two URLs serve the page and it names neither as canonical: search engines see duplicates. */
function aliasWithoutCanonical(alias: IndexAlias): Issue {
  return {
    outcome: 'warn',
    message:
      'The page is also linked under a second URL (its /index.html form or the reverse) and declares no canonical URL, so search engines see duplicate pages.',
    evidence: truncate(
      `${alias.url} = ${alias.aliasOf}; add <link rel="canonical" href="${alias.aliasOf}">`,
      EVIDENCE_MAX,
    ),
    subject: `alias ${resourceSubject(alias.url, alias.aliasOf)}`,
  };
}

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
      ok =
        languageNames.of(m[1]!) !== undefined &&
        (m[3] === undefined || regionNames.of(m[3].toUpperCase()) !== undefined);
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
    const links = p
      .elements('link')
      .filter((l) => attr(l, 'hreflang') !== undefined && relTokens(l).includes('alternate'));
    if (links.length === 0) return null;
    const issues: Issue[] = [];
    const alternates: HreflangObservation['alternates'] = [];
    for (const l of links.slice(0, MAX_HREFLANG)) {
      const lang = attr(l, 'hreflang')!;
      const href = attr(l, 'href') ?? '';
      const evidence = snippet(p, l);
      if (issues.length < MAX_ISSUES_PER_PAGE && !isValidHreflang(lang))
        issues.push({
          outcome: 'fail',
          message: `"${truncate(lang, 40)}" is not a valid hreflang language code.`,
          evidence,
          subject: `invalid ${lang.trim().toLowerCase()}`,
        });
      if (!isAbsoluteHttpUrl(href)) {
        if (issues.length < MAX_ISSUES_PER_PAGE)
          issues.push({
            outcome: 'fail',
            message: 'An hreflang link does not use an absolute URL.',
            evidence,
            subject: `relative ${href.trim()}`,
          });
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
          issues.push({
            outcome: 'fail',
            message: 'An alternate language version does not link back to this page (no return hreflang link).',
            evidence: a.evidence,
            subject: `no return ${resourceSubject(a.url, o.url)}`,
          });
        }
      }
      return pageIssues(issues);
    });
  },
});

export const SEO_LINK_ANALYZERS: readonly Analyzer[] = [
  canonicalInvalid,
  hreflangInvalid,
  linkTextGeneric,
  anchorNotCrawlable,
];
