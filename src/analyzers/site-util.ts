import { STATUS_CODES } from 'node:http';
import { siteOfUrl } from '../registrable-domain';
import type { CrawlSnapshot, SnapshotPage } from './snapshot';

/** Small helpers shared by the site-level analyzers (the SEO site and link checks, performance-site). */

/** Absolute URL without its fragment, or null when it does not parse. */
export function normalizeUrl(href: string, base?: string): string | null {
  try {
    const u = new URL(href.trim(), base);
    u.hash = '';
    // The same text as given keeps the given string: a site's URLs are mostly normal already, and
    // the maps of every page's URLs then share the page's own strings instead of copies.
    return u.href === href ? href : u.href;
  } catch {
    return null;
  }
}

/** True for an absolute http(s) URL as written (not relative, not protocol-relative). */
export function isAbsoluteHttpUrl(href: string): boolean {
  return /^https?:\/\/[^/?#\s]/i.test(href.trim());
}

/** The status each known URL answers: a page's requested URL answers its first hop's status when it redirected. */
export interface UrlStatus {
  readonly status: number;
  /** The final URL when this URL redirected. */
  readonly redirectsTo?: string;
}

export function pageStatusIndex(pages: readonly SnapshotPage[]): Map<string, UrlStatus> {
  const out = new Map<string, UrlStatus>();
  for (const p of pages) {
    const final = normalizeUrl(p.finalUrl);
    if (final !== null && !out.has(final)) out.set(final, { status: p.status });
    for (const hop of p.redirectChain) {
      const u = normalizeUrl(hop.url);
      if (u !== null && !out.has(u)) out.set(u, { status: hop.status, redirectsTo: p.finalUrl });
    }
    const requested = normalizeUrl(p.url);
    if (requested !== null && !out.has(requested)) {
      const first = p.redirectChain[0];
      out.set(requested, first ? { status: first.status, redirectsTo: p.finalUrl } : { status: p.status });
    }
  }
  return out;
}

/** True when the URL belongs to the audited site (same registrable domain as the origin). */
export function sameSite(snapshot: CrawlSnapshot, url: string): boolean {
  const site = siteOfUrl(snapshot.origin);
  return site !== null && site === siteOfUrl(url);
}

/** The home page URL of the audit (origin + "/"). */
export function homeUrl(snapshot: CrawlSnapshot): string {
  return normalizeUrl('/', snapshot.origin) ?? `${snapshot.origin}/`;
}

export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : pluralWord}`;
}

/** Status line text for messages, e.g. "HTTP 404 (Not Found)". */
export function statusText(status: number): string {
  const reason = STATUS_CODES[status];
  return `HTTP ${status}${reason ? ` (${reason})` : ''}`;
}

export function worstStatus(a: 'pass' | 'warn' | 'fail', b: 'pass' | 'warn' | 'fail'): 'pass' | 'warn' | 'fail' {
  if (a === 'fail' || b === 'fail') return 'fail';
  return a === 'warn' || b === 'warn' ? 'warn' : 'pass';
}

/** pageStatusIndex plus the statuses link checks saw for URLs not crawled. */
export function knownUrlStatuses(snapshot: CrawlSnapshot): Map<string, UrlStatus> {
  const statuses = pageStatusIndex(snapshot.pages);
  for (const check of snapshot.linkChecks ?? []) {
    const url = normalizeUrl(check.url);
    if (url !== null && check.status !== null && !statuses.has(url)) statuses.set(url, { status: check.status });
  }
  return statuses;
}
