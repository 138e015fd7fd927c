import { clientRedirect } from './client-redirect';
import { contentNeedsJs } from './seo-content-js';
import { duplicateContent } from './seo-structure-duplicates';
import { internalRedirectLink } from './seo-structure-redirects';
import {
  evidence,
  inlinks,
  isHomePage,
  isIndexable,
  ownUrls,
  pagesByUrl,
  shallowestFirst,
  somePaths,
  structureOutcome,
  type Listed,
} from './seo-structure-common';
import type { CrawlSnapshot, SnapshotPage } from './snapshot';
import { normalizeUrl, plural, sameSite } from './site-util';
import { resourceSubject } from './subject';
import { EVIDENCE_MAX, defineAnalyzer, type Analyzer, type FindingDraft } from './types';

/**
 * Site structure (docs/analyzers.md, Site structure): how pages hang together through internal
 * links — orphans, deep pages and pages with a single inbound link here; links through redirects in
 * seo-structure-redirects.ts and duplicate main text in seo-structure-duplicates.ts. They read the
 * crawl's link facts (depth, foundOn, linkedFrom) and observe only whether each page is indexable.
 */

const isAre = (n: number) => (n === 1 ? 'is' : 'are');

// ── SEO_ORPHAN_PAGE ──────────────────────────────────────────────────────────────────────────────

/** The <loc> entries of the <urlset> sitemaps, normalized, with the sitemap listing each first. */
function sitemapEntries(snapshot: CrawlSnapshot): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of snapshot.sitemaps ?? []) {
    if (f.root !== 'urlset') continue;
    for (const loc of f.locs ?? []) {
      const u = normalizeUrl(loc);
      if (u !== null && !out.has(u)) out.set(u, f.url);
    }
  }
  return out;
}

/** Addresses some crawled page links to (directly, through a redirect, or through an /index.html alias). */
function linkedUrls(snapshot: CrawlSnapshot): Set<string> {
  const out = new Set<string>();
  for (const p of snapshot.pages) if (inlinks(p) > 0) for (const u of ownUrls(p)) out.add(u);
  for (const a of snapshot.indexAliases ?? []) {
    const u = normalizeUrl(a.aliasOf);
    if (u !== null && a.foundOn.length > 0) out.add(u);
  }
  return out;
}

/**
 * Units: the crawled HTML pages that are not client-side redirects. An orphan answers 200 with HTML,
 * is listed in a sitemap (as requested or as served), is not the home page, and no crawled page links
 * to it (linkedFrom 0 or absent).
 */
export const orphanPage = defineAnalyzer<boolean | null>({
  code: 'SEO_ORPHAN_PAGE',
  // null: a client-side redirect, not a page of its own (a sitemap listing it is SEO_SITEMAP_INVALID's).
  observe: (p) => (clientRedirect(p) === null ? isIndexable(p) : null),
  finish(snapshot, observed) {
    const listed = sitemapEntries(snapshot);
    const linked = linkedUrls(snapshot);
    const orphans: (Listed & { sitemap: string })[] = [];
    const seen = new Set<string>();
    observed.forEach((o, order) => {
      if (!o.isHtml || o.value === null || o.page.status !== 200 || isHomePage(snapshot, o.page)) return;
      const own = ownUrls(o.page);
      if (own.some((u) => linked.has(u) || seen.has(u))) return;
      // Listed as requested or as served; only an entry of the audited site counts.
      const entry = own.find((u) => listed.has(u) && sameSite(snapshot, u));
      if (entry === undefined) return;
      const sitemap = listed.get(entry)!;
      own.forEach((u) => seen.add(u));
      orphans.push({ url: o.url, depth: o.page.depth, order, sitemap });
    });
    orphans.sort(shallowestFirst);
    const findings: FindingDraft[] = [];
    if (orphans.length > 0) {
      const urls = orphans.map((o) => o.url);
      findings.push({
        message: `${plural(urls.length, 'page')} listed in the sitemap ${isAre(urls.length)} not linked from any crawled page.`,
        evidence: evidence(
          `${somePaths(urls, snapshot.origin)}: listed in ${orphans[0]!.sitemap}, linked from no crawled page`,
        ),
        urls,
      });
    }
    const units = observed.filter((o) => o.isHtml && o.value !== null).length;
    return structureOutcome(
      observed.some((o) => o.value),
      units,
      orphans.length,
      findings,
    );
  },
});

// ── SEO_DEEP_PAGE ────────────────────────────────────────────────────────────────────────────────

/** Indexable pages more than this many clicks from the home page are deep. */
export const MAX_CLICK_DEPTH = 4;

/**
 * One shortest click path from the home page to the page, as paths: each page's first referrer
 * (foundOn[0]) is its parent in the breadth-first crawl. "…" marks where the chain cannot be followed.
 */
export function clickPath(page: SnapshotPage, snapshot: CrawlSnapshot): string[] {
  const index = pagesByUrl(snapshot.pages);
  const path = [resourceSubject(page.finalUrl, snapshot.origin)];
  const visited = new Set<SnapshotPage>([page]);
  let current = page;
  while (!isHomePage(snapshot, current)) {
    const parentUrl = current.foundOn?.[0];
    if (parentUrl === undefined) {
      path.unshift('…');
      break;
    }
    path.unshift(resourceSubject(parentUrl, snapshot.origin));
    const parent = index.get(normalizeUrl(parentUrl) ?? parentUrl)?.page;
    if (parent === undefined || visited.has(parent)) {
      if (parent === undefined || !isHomePage(snapshot, parent)) path.unshift('…');
      break;
    }
    visited.add(parent);
    current = parent;
  }
  return path;
}

/** `depth 6: / → /a → … → /f`, the middle steps elided until it fits the evidence. */
export function pathEvidence(depth: number, path: readonly string[]): string {
  const parts = [...path];
  const text = () => `depth ${depth}: ${parts.join(' → ')}`;
  // Elide from the second step on, keeping the home page and the last steps readable.
  while (text().length > EVIDENCE_MAX && parts.length > 3) parts.splice(1, parts[1] === '…' ? 2 : 1, '…');
  return evidence(text());
}

/**
 * Units: indexable pages. A page is deep when its depth (the shortest link path, the crawl being
 * breadth first) exceeds MAX_CLICK_DEPTH; pages reached only from a sitemap have no depth and are
 * never deep. The evidence shows the path to the deepest page (the first of them in crawl order).
 */
export const deepPage = defineAnalyzer<boolean>({
  code: 'SEO_DEEP_PAGE',
  observe: isIndexable,
  finish(snapshot, observed) {
    const deep: (Listed & { page: SnapshotPage; depth: number })[] = [];
    const seen = new Set<string>();
    observed.forEach((o, order) => {
      const depth = o.page.depth;
      if (!o.value || depth === null || depth <= MAX_CLICK_DEPTH || seen.has(o.url)) return;
      seen.add(o.url);
      deep.push({ url: o.url, depth, order, page: o.page });
    });
    deep.sort(shallowestFirst);
    const findings: FindingDraft[] = [];
    if (deep.length > 0) {
      const max = deep[deep.length - 1]!.depth;
      const deepest = deep.find((d) => d.depth === max)!;
      findings.push({
        message: `${plural(deep.length, 'indexable page')} ${isAre(deep.length)} more than ${MAX_CLICK_DEPTH} clicks from the home page; the deepest is ${max} clicks away.`,
        evidence: pathEvidence(max, clickPath(deepest.page, snapshot)),
        urls: deep.map((d) => d.url),
      });
    }
    const units = observed.filter((o) => o.value).length;
    return structureOutcome(units > 0, units, deep.length, findings);
  },
});

// ── SEO_FEW_INLINKS ──────────────────────────────────────────────────────────────────────────────

/**
 * Units: indexable pages, once per served URL; the home page always passes. A page has few inlinks when
 * exactly one crawled page links to it: the linkedFrom of every crawled record served at its URL
 * (its own, and those of URLs redirecting to it) adds up to 1.
 */
export const fewInlinks = defineAnalyzer<boolean>({
  code: 'SEO_FEW_INLINKS',
  observe: isIndexable,
  finish(snapshot, observed) {
    const byFinal = new Map<string, { total: number; referrer?: string }>();
    for (const p of snapshot.pages) {
      const key = normalizeUrl(p.finalUrl) ?? p.finalUrl;
      const entry = byFinal.get(key) ?? { total: 0 };
      entry.total += inlinks(p);
      entry.referrer ??= p.foundOn?.[0];
      byFinal.set(key, entry);
    }
    const few: (Listed & { referrer?: string })[] = [];
    const seen = new Set<string>();
    let units = 0;
    observed.forEach((o, order) => {
      const key = normalizeUrl(o.url) ?? o.url;
      if (!o.value || seen.has(key)) return;
      seen.add(key);
      units++; // the home page counts as passing
      if (isHomePage(snapshot, o.page)) return;
      const entry = byFinal.get(key);
      if (entry?.total === 1) few.push({ url: o.url, depth: o.page.depth, order, referrer: entry.referrer });
    });
    few.sort(shallowestFirst);
    const findings: FindingDraft[] = [];
    if (few.length > 0) {
      const shown = few
        .slice(0, 3)
        .map(
          (f, i) =>
            `${resourceSubject(f.url, snapshot.origin)}${i === 0 ? ' is linked' : ''} only from ${f.referrer ? resourceSubject(f.referrer, snapshot.origin) : '(unknown)'}`,
        );
      findings.push({
        message: `${plural(few.length, 'indexable page')} ${isAre(few.length)} linked from only one other crawled page.`,
        evidence: evidence(`${shown.join('; ')}${few.length > 3 ? `; and ${few.length - 3} more` : ''}`),
        urls: few.map((f) => f.url),
      });
    }
    return structureOutcome(
      observed.some((o) => o.value),
      units,
      few.length,
      findings,
    );
  },
});

export const SEO_STRUCTURE_ANALYZERS: readonly Analyzer[] = [
  internalRedirectLink,
  orphanPage,
  deepPage,
  fewInlinks,
  duplicateContent,
  contentNeedsJs,
];
