import { STATUS_CODES } from 'node:http';
import { textContent } from 'domutils';
import type { Element } from 'domhandler';
import { isContentPage } from './client-redirect';
import { headerEvidence } from './evidence';
import { attr, hasAncestor, metaNamed, snippet, truncate, type ParsedPage } from './parse';
import { firstCanonical } from './seo-links';
import { titleLengthIssue } from './title-length';
import { headerValues } from './snapshot';
import { normalizeUrl } from './site-util';
import { elementSubject } from './subject';
import {
  DistinctPerKey,
  EVIDENCE_MAX,
  MAX_ISSUES_PER_PAGE,
  PAGE_PASS,
  defineAnalyzer,
  pageAnalyzer,
  pageFail,
  pageIssues,
  pageWarn,
  perPage,
  type Analyzer,
  type Issue,
  type PageResult,
} from './types';

/** On-page SEO checks of each crawled document (and titles shared across pages). */

/** The document's title element: the first <title> outside inline SVG (whose <title> is a tooltip). */
export function documentTitle(p: ParsedPage): Element | undefined {
  return p.elements('title').find((t) => !hasAncestor(t, 'svg'));
}

/** Title text as search engines show it (whitespace collapsed), or null without a title element. */
export function titleText(p: ParsedPage): string | null {
  const t = documentTitle(p);
  return t ? textContent(t).replace(/\s+/g, ' ').trim() : null;
}

// ── SEO_HTTP_STATUS_ERROR ────────────────────────────────────────────────────────────────────────

export const httpStatusError = pageAnalyzer('SEO_HTTP_STATUS_ERROR', (p) => {
  const status = p.page.status;
  if (status < 400) return PAGE_PASS;
  if ((p.page.foundOn ?? []).length > 0) return null; // one broken URL: SEO_BROKEN_LINK reports it with its links
  const reason = STATUS_CODES[status];
  return pageFail(
    `The page answers HTTP ${status}${reason ? ` (${reason})` : ''}.`,
    `HTTP ${status}${reason ? ` ${reason}` : ''}${p.page.url !== p.url ? ` (requested as ${p.page.url})` : ''}`,
    `HTTP ${status}`,
  );
});

// ── SEO_TITLE_MISSING ────────────────────────────────────────────────────────────────────────────

export const titleMissing = pageAnalyzer('SEO_TITLE_MISSING', (p) => {
  if (!isContentPage(p)) return null;
  const el = documentTitle(p);
  if (!el) return pageFail('The page has no <title> element.', '(no <title> element)', 'missing');
  if (titleText(p) === '') return pageFail('The page title is empty.', snippet(p, el), 'empty');
  return PAGE_PASS;
});

// ── SEO_META_DESC_MISSING ────────────────────────────────────────────────────────────────────────

interface DescObservation {
  /**
   * The description element's snippet, the evidence of an empty one; '' for one with content (not
   * kept: a copy of every page's element held through the finish); null when the page has none.
   */
  snippet: string | null;
  text: string;
}

export const metaDescMissing = defineAnalyzer<DescObservation | null>({
  code: 'SEO_META_DESC_MISSING',
  observe(p) {
    if (!isContentPage(p)) return null;
    const els = metaNamed(p, 'description');
    const el = els.find((m) => (attr(m, 'content') ?? '').trim() !== '') ?? els[0];
    const text = (el ? (attr(el, 'content') ?? '') : '').replace(/\s+/g, ' ').trim();
    return { snippet: el ? (text === '' ? snippet(p, el) : '') : null, text };
  },
  finish(_s, observed) {
    // Descriptions shared by several distinct pages: search engines then show the same snippet for all.
    const urlsByText = new DistinctPerKey();
    for (const o of observed) if (o.value && o.value.text !== '') urlsByText.add(o.value.text, o.url);
    return perPage(observed, ({ value: d }) => {
      if (!d) return null;
      if (d.snippet === null)
        return pageFail('The page has no meta description.', '(no <meta name="description"> element)', 'missing');
      if (d.text === '') return pageFail('The meta description is empty.', d.snippet, 'empty');
      if (urlsByText.count(d.text) > 1) {
        return pageWarn(
          'The same meta description is used on several pages.',
          truncate(`<meta name="description" content="${d.text}">`, EVIDENCE_MAX),
          `duplicate ${d.text}`,
        );
      }
      return PAGE_PASS;
    });
  },
});

// ── SEO_H1_MISSING ───────────────────────────────────────────────────────────────────────────────

export const h1Missing = pageAnalyzer('SEO_H1_MISSING', (p) => {
  if (!isContentPage(p)) return null;
  const h1s = p.elements('h1');
  if (h1s.length === 0) return pageFail('The page has no <h1> heading.', '(no <h1> element)', 'missing');
  if (h1s.length > 1) {
    return pageWarn(
      `The page has ${h1s.length} <h1> headings instead of one.`,
      truncate(
        h1s
          .slice(0, 3)
          .map((h) => snippet(p, h, 90))
          .join(' | '),
        EVIDENCE_MAX,
      ),
      'several',
    );
  }
  return PAGE_PASS;
});

// ── SEO_NOINDEX ──────────────────────────────────────────────────────────────────────────────────

/** Robots directives (Google's list); a `name:` prefix that is not one of them names a user agent. */
const ROBOTS_DIRECTIVES = new Set([
  'all',
  'noindex',
  'nofollow',
  'none',
  'noarchive',
  'nosnippet',
  'notranslate',
  'noimageindex',
  'unavailable_after',
  'max-snippet',
  'max-image-preview',
  'max-video-preview',
  'indexifembedded',
  'nocache',
]);
/** Directives addressed to these agents (or to none) count: they are the ones that hide pages from search. */
const COUNTED_AGENTS = new Set(['googlebot', 'bingbot']);

/** Whether an X-Robots-Tag value forbids indexing for all agents or for the major search engines. */
export function xRobotsNoindex(value: string): boolean {
  let agent: string | null = null; // a user-agent prefix applies to the directives after it
  for (const raw of value.split(',')) {
    let part = raw.trim().toLowerCase();
    const m = /^([a-z0-9_-]+)\s*:\s*(.*)$/.exec(part);
    if (m && !ROBOTS_DIRECTIVES.has(m[1]!)) {
      agent = m[1]!;
      part = m[2]!.trim();
    }
    if ((agent === null || COUNTED_AGENTS.has(agent)) && (part === 'noindex' || part === 'none')) return true;
  }
  return false;
}

/** A robots meta tag's content that keeps the page out of search results. */
export function metaNoindex(content: string): boolean {
  return content
    .toLowerCase()
    .split(/[\s,]+/)
    .some((t) => t === 'noindex' || t === 'none');
}

export const noindex = pageAnalyzer('SEO_NOINDEX', (p) => {
  if (!isContentPage(p)) return null;
  // The home page hidden from search is a site-wide failure; other pages are often hidden on
  // purpose (thank-you, search results), so they warn.
  const outcome = p.page.depth === 0 ? 'fail' : 'warn';
  const where = p.page.depth === 0 ? 'home ' : '';
  const issues: Issue[] = [];
  const xrt = headerValues(p.page.headers, 'x-robots-tag');
  if (xrt.some(xRobotsNoindex)) {
    issues.push({
      outcome,
      message: 'An X-Robots-Tag header tells search engines not to index this page.',
      evidence: headerEvidence(p.page.headers, 'x-robots-tag'),
      subject: `${where}x-robots-tag`,
    });
  }
  for (const name of ['robots', 'googlebot']) {
    const m = metaNamed(p, name).find((el) => metaNoindex(attr(el, 'content') ?? ''));
    if (m)
      issues.push({
        outcome,
        message: `A <meta name="${name}"> tag tells search engines not to index this page.`,
        evidence: snippet(p, m),
        subject: `${where}meta ${name}`,
      });
  }
  if (issues.length > 0 && outcome === 'fail')
    for (const i of issues)
      i.message = `The home page is excluded from search results: ${i.message.charAt(0).toLowerCase()}${i.message.slice(1)}`;
  return pageIssues(issues);
});

// ── SEO_TITLE_DUPLICATE ──────────────────────────────────────────────────────────────────────────

interface TitleObservation {
  title: string;
  /** Pages declaring the same canonical are one document for search engines: their titles may match. */
  key: string;
}

/** A title shared by distinct pages fails; a unique title outside 30–60 in display width (CJK counts 2) warns. */
export const titleDuplicate = defineAnalyzer<TitleObservation | null>({
  code: 'SEO_TITLE_DUPLICATE',
  observe(p) {
    if (!isContentPage(p)) return null;
    const title = titleText(p);
    if (title === null || title === '') return null; // SEO_TITLE_MISSING reports it
    return { title, key: firstCanonical(p) ?? normalizeUrl(p.url) ?? p.url };
  },
  finish(_s, observed) {
    const keysByTitle = new DistinctPerKey();
    for (const o of observed) if (o.value) keysByTitle.add(o.value.title, o.value.key);
    return perPage(observed, ({ value: t }) => {
      if (!t) return null;
      const issues: Issue[] = [];
      const evidence = truncate(`<title>${t.title}</title>`, EVIDENCE_MAX);
      const shared = keysByTitle.count(t.title);
      if (shared > 1)
        issues.push({
          outcome: 'fail',
          message: `The same title is used on ${shared} different pages.`,
          evidence,
          subject: `duplicate ${t.title}`,
        });
      const length = titleLengthIssue(t.title, evidence);
      if (length) issues.push(length);
      return pageIssues(issues);
    });
  },
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
      issues.push({
        outcome: 'fail',
        message: 'A JSON-LD block is not valid JSON.',
        evidence: truncate(`${truncate(reason, 80)}: ${snippet(p, s, 200)}`, EVIDENCE_MAX),
        subject: `invalid json ${elementSubject(s, p.url)}`,
      });
      continue;
    }
    if (jsonLdMissingType(data))
      issues.push({
        outcome: 'fail',
        message: 'A JSON-LD item has no @type.',
        evidence: snippet(p, s),
        subject: `no @type ${elementSubject(s, p.url)}`,
      });
  }
  return issues.length === 0 ? PAGE_PASS : pageIssues(issues);
});

export const SEO_PAGE_ANALYZERS: readonly Analyzer[] = [
  httpStatusError,
  noindex,
  titleMissing,
  titleDuplicate,
  metaDescMissing,
  h1Missing,
  structuredDataInvalid,
];
