import type { Element } from 'domhandler';
import { clientRedirect } from './client-redirect';
import { anchorHashes } from './page-references';
import { attr } from './parse';
import { firstCanonical } from './seo-links';
import { evidence, inlinks, isIndexable, listUrls, pagesByUrl, structureOutcome } from './seo-structure-common';
import { hash52 } from './simhash';
import type { CrawlSnapshot, RedirectHop, SnapshotPage } from './snapshot';
import { normalizeUrl, plural, sameSite } from './site-util';
import { resourceSubject } from './subject';
import { defineAnalyzer, foldFindings, type FindingDraft } from './types';

/**
 * SEO_INTERNAL_REDIRECT_LINK (docs/analyzers.md, Site structure): same-site links, canonical URLs and
 * hreflang alternates that point at a URL answering 3xx. Which URLs redirect is known only once
 * every page is crawled, so each page keeps just 52-bit hashes of the URLs its `<a href>`/`<area
 * href>` links, its canonical and its hreflang alternates point at, matched against the redirects in
 * `finish`: every linking page is named, not only the crawl's first referrers (foundOn), and a
 * page's link list is never held as text.
 */

/** hreflang alternates kept per page (as SEO_HREFLANG_INVALID reads them). */
const MAX_ALTERNATES = 300;

interface RefObservation {
  indexable: boolean;
  /**
   * hash52 of each distinct URL the page's <a href> and <area href> resolve to (with <base href>).
   * A typed array: read back from the analysis' scratch file it is a view on the chunk's bytes, not
   * a heap number per link (docs/architecture.md, "Durable crawl", Memory).
   */
  links: Float64Array;
  /** hash52 of the resolved canonical URL. */
  canonical: number | null;
  /** hash52 of each distinct resolved hreflang alternate. */
  alternates: number[];
  /** Where the page sends the browser, when it is a client-side redirect (absent otherwise). */
  refresh?: { to: string; delaySeconds: number };
}

function isHreflangLink(l: Element): boolean {
  const rel = (attr(l, 'rel') ?? '').toLowerCase().split(/\s+/);
  return rel.includes('alternate') && attr(l, 'hreflang') !== undefined;
}

/** A redirecting URL of the site and what points at it. */
interface Target {
  /** Normalized URL that answers 3xx. */
  readonly url: string;
  /** The hops from this URL on, and the page they end at. */
  readonly hops: readonly RedirectHop[];
  readonly page: SnapshotPage;
  /** Crawled pages linking here with <a href> (first ones), and how many in all. */
  readonly foundOn: readonly string[];
  readonly linkedFrom: number;
  /** Pages whose <a>/<area> links lead here, every one of them (foundOn holds the crawl's first). */
  readonly linkers: Set<string>;
  /** Pages naming it as their canonical URL, or as an hreflang alternate. */
  readonly canonicalOf: Set<string>;
  readonly alternateOf: Set<string>;
  /** A page answering 200 that sends the browser on (a client-side redirect): where, and after how long. */
  readonly refresh?: { to: string; delaySeconds: number };
}

/** Every same-site URL the crawl saw answering 3xx (requested URLs and later hops), by hash52. */
function redirectTargets(snapshot: CrawlSnapshot): Map<number, Target> {
  const out = new Map<number, Target>();
  for (const page of snapshot.pages) {
    page.redirectChain.forEach((hop, i) => {
      const url = normalizeUrl(i === 0 ? page.url : hop.url);
      if (url === null || hop.status < 300 || hop.status > 399 || !sameSite(snapshot, url)) return;
      const key = hash52(url);
      if (out.has(key)) return;
      // The crawl counts the referrers of the requested URL only.
      out.set(key, target(url, page, { hops: page.redirectChain.slice(i), requested: i === 0 }));
    });
  }
  return out;
}

/**
 * The crawled pages that are client-side redirects, as targets beside the 3xx ones: a link to one is
 * a link through a redirect just the same (docs/analyzers.md, "Client-side redirects").
 */
function addClientRedirects(
  snapshot: CrawlSnapshot,
  observed: readonly { page: SnapshotPage; value: RefObservation | null }[],
  targets: Map<number, Target>,
): void {
  for (const { page, value } of observed) {
    const url = value?.refresh ? normalizeUrl(page.finalUrl) : null;
    if (url === null || !sameSite(snapshot, url) || targets.has(hash52(url))) continue;
    const requested = page.redirectChain.length === 0;
    targets.set(hash52(url), target(url, page, { hops: [], requested, refresh: value!.refresh }));
  }
}

/** A redirecting URL with no page pointing at it yet; the crawl's referrers count only for the URL it requested. */
function target(
  url: string,
  page: SnapshotPage,
  how: { hops: readonly RedirectHop[]; requested: boolean; refresh?: Target['refresh'] },
): Target {
  return {
    url,
    hops: how.hops,
    page,
    foundOn: how.requested ? (page.foundOn ?? []) : [],
    linkedFrom: how.requested ? inlinks(page) : 0,
    linkers: new Set(),
    canonicalOf: new Set(),
    alternateOf: new Set(),
    ...(how.refresh && { refresh: how.refresh }),
  };
}

/** Every page pointing at the target: the crawl's first referrers, every page seen linking, canonical or hreflang. */
function pointing(t: Target): Set<string> {
  return new Set([...t.foundOn, ...t.linkers, ...t.canonicalOf, ...t.alternateOf]);
}

/** Pages linking here: the crawl's exact count, or the pages seen linking where that is more (a 3xx hop). */
function linkCount(t: Target): number {
  return Math.max(t.linkedFrom, t.linkers.size);
}

function references(t: Target): number {
  return linkCount(t) + t.canonicalOf.size + t.alternateOf.size;
}

function targetMessage(t: Target, origin: string): string {
  const how: string[] = [];
  if (linkCount(t) > 0) how.push(`linked from ${plural(linkCount(t), 'page')}`);
  if (t.canonicalOf.size > 0) how.push(`named as the canonical URL of ${plural(t.canonicalOf.size, 'page')}`);
  if (t.alternateOf.size > 0) how.push(`named as an hreflang alternate on ${plural(t.alternateOf.size, 'page')}`);
  const said = how.length > 1 ? `${how.slice(0, -1).join(', ')} and ${how[how.length - 1]}` : how[0];
  const by = t.refresh ? `in the browser (a refresh after ${t.refresh.delaySeconds} s)` : `(HTTP ${t.hops[0]!.status})`;
  const to = t.refresh ? t.refresh.to : t.page.finalUrl;
  return `${resourceSubject(t.url, origin)} redirects ${by} to ${to}; it is ${said}.`;
}

function targetEvidence(t: Target, origin: string): string {
  const chain = t.refresh
    ? [`${t.url} (${t.page.status}, refresh after ${t.refresh.delaySeconds} s)`, t.refresh.to]
    : [...t.hops.map((h) => `${h.url} (${h.status})`), `${t.page.finalUrl} (${t.page.status})`];
  const paths = (urls: Iterable<string>, total: number) => {
    const shown = [...urls].slice(0, 3).map((u) => resourceSubject(u, origin));
    return total > shown.length ? `${shown.join(', ')} and ${total - shown.length} more` : shown.join(', ');
  };
  const from: string[] = [];
  if (linkCount(t) > 0) from.push(`linked from ${paths(t.linkers.size > 0 ? t.linkers : t.foundOn, linkCount(t))}`);
  if (t.canonicalOf.size > 0) from.push(`canonical of ${paths(t.canonicalOf, t.canonicalOf.size)}`);
  if (t.alternateOf.size > 0) from.push(`hreflang on ${paths(t.alternateOf, t.alternateOf.size)}`);
  return evidence(`${chain.join(' → ')}; ${from.join('; ')}`);
}

/**
 * One finding per redirecting target (its subject), listing the pages that point at it: the first
 * referrers the crawl kept (the message gives the exact count) and every page naming it as canonical
 * or hreflang alternate. Units: the crawled HTML pages; a page pointing at any redirect fails.
 */
export const internalRedirectLink = defineAnalyzer<RefObservation | null>({
  code: 'SEO_INTERNAL_REDIRECT_LINK',
  observe(p) {
    if (!p.isHtml) return null;
    const canonical = firstCanonical(p);
    const alternates = new Set<number>();
    for (const l of p.elements('link')) {
      if (alternates.size >= MAX_ALTERNATES) break;
      const href = attr(l, 'href');
      const url = href !== undefined && isHreflangLink(l) ? normalizeUrl(href, p.url) : null;
      if (url !== null) alternates.add(hash52(url));
    }
    const redirect = clientRedirect(p);
    return {
      indexable: isIndexable(p),
      links: anchorHashes(p),
      canonical: canonical === null ? null : hash52(canonical),
      alternates: [...alternates],
      ...(redirect && { refresh: { to: redirect.to, delaySeconds: redirect.delaySeconds } }),
    };
  },
  finish(snapshot, observed) {
    const targets = redirectTargets(snapshot);
    addClientRedirects(snapshot, observed, targets);
    for (const o of observed) {
      if (!o.value) continue;
      // A redirect page naming itself (its own canonical, a "#" link) points nowhere new.
      const self = hash52(normalizeUrl(o.url) ?? o.url);
      const t = o.value.canonical === null || o.value.canonical === self ? undefined : targets.get(o.value.canonical);
      t?.canonicalOf.add(o.url);
      for (const link of o.value.links) if (link !== self) targets.get(link)?.linkers.add(o.url);
      for (const a of o.value.alternates) if (a !== self) targets.get(a)?.alternateOf.add(o.url);
    }
    const index = pagesByUrl(snapshot.pages);
    const hit = [...targets.values()]
      .filter((t) => references(t) > 0)
      .sort((a, b) => references(b) - references(a) || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    const findings = hit.map((t): FindingDraft => {
      const urls = listUrls(pointing(t), index);
      return {
        message: targetMessage(t, snapshot.origin),
        evidence: targetEvidence(t, snapshot.origin),
        urls,
        subject: resourceSubject(t.url, snapshot.origin),
      };
    });
    // Units: the HTML pages, by served URL; those pointing at any redirect fail.
    const units = new Set(observed.filter((o) => o.value !== null).map((o) => normalizeUrl(o.url) ?? o.url));
    const affected = new Set<string>();
    for (const t of hit)
      for (const u of pointing(t)) {
        const n = normalizeUrl(u) ?? u;
        if (units.has(n)) affected.add(n);
      }
    return structureOutcome(
      observed.some((o) => o.value?.indexable === true),
      units.size,
      affected.size,
      foldFindings(findings, 'redirecting targets'),
    );
  },
});
