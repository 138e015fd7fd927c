import { referenceHashes } from './page-references';
import { truncate } from './parse';
import { hash52 } from './simhash';
import { resourceSubject } from './subject';
import { robotsBlocked, robotsTxtInvalid } from './seo-robots';
import { sitemapInvalid } from './seo-sitemap';
import type { CrawlSnapshot, SnapshotPage } from './snapshot';
import { normalizeUrl, plural, sameSite, statusText } from './site-util';
import {
  EVIDENCE_MAX,
  defineAnalyzer,
  foldFindings,
  PAGE_PASS,
  notApplicable,
  pageIssues,
  perPage,
  siteAnalyzer,
  siteOutcome,
  type Analyzer,
  type FindingDraft,
  type Issue,
} from './types';

/**
 * Site-level SEO checks: llms.txt, redirects and broken links here; robots.txt in seo-robots.ts and
 * sitemaps in seo-sitemap.ts.
 */

// ── SEO_LLMS_TXT ─────────────────────────────────────────────────────────────────────────────────

/** Info only (weight 0): pass when /llms.txt answers 2xx with text that is not an HTML fallback page. */
export const llmsTxt = siteAnalyzer('SEO_LLMS_TXT', (snapshot) => {
  const f = snapshot.llmsTxt;
  if (f === undefined) return notApplicable();
  if (f.kind === 'unreachable') {
    return siteOutcome('fail', [
      {
        message: '/llms.txt could not be fetched.',
        evidence: truncate(`GET ${f.url}: ${f.error}`, EVIDENCE_MAX),
        urls: [f.url],
      },
    ]);
  }
  if (f.status < 200 || f.status > 299) {
    return siteOutcome('fail', [
      {
        message: `The site has no /llms.txt (it answers ${statusText(f.status)}).`,
        evidence: `GET ${f.url} → HTTP ${f.status}`,
        urls: [f.url],
      },
    ]);
  }
  const type = (f.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const start = (f.bodyStart ?? '').trimStart();
  if (type === 'text/html' || type === 'application/xhtml+xml' || start.startsWith('<')) {
    return siteOutcome('fail', [
      {
        message: '/llms.txt answers 200 with an HTML page (a fallback), not a Markdown file.',
        evidence: truncate(
          `GET ${f.url} → HTTP ${f.status}, Content-Type: ${f.contentType ?? '(absent)'}`,
          EVIDENCE_MAX,
        ),
        urls: [f.url],
      },
    ]);
  }
  if (f.bodyStart !== undefined && start === '') {
    return siteOutcome('fail', [
      { message: '/llms.txt is empty.', evidence: `GET ${f.url} → HTTP ${f.status}, empty body`, urls: [f.url] },
    ]);
  }
  return siteOutcome('pass');
});

// ── SEO_REDIRECT_CHAIN ───────────────────────────────────────────────────────────────────────────

export function chainEvidence(page: SnapshotPage): string {
  const parts = page.redirectChain.map((h) => `${h.url} (${h.status})`);
  parts.push(`${page.finalUrl} (${page.status})`);
  return truncate(parts.join(' → '), EVIDENCE_MAX);
}

/**
 * Each crawled URL is a unit. One hop passes; two hops warn; three or more fail; a loop (a URL
 * repeated, or a chain the crawler gave up on while still redirecting) fails.
 */
export const redirectChain = siteAnalyzer('SEO_REDIRECT_CHAIN', (snapshot, observed) => {
  return perPage(
    observed.map((o) => ({ url: o.page.url, page: o.page })),
    ({ page }) => {
      const hops = page.redirectChain.length;
      if (hops === 0) return PAGE_PASS;
      const seen = new Set<string>();
      let loop = page.status >= 300 && page.status < 400;
      for (const u of [...page.redirectChain.map((h) => h.url), page.finalUrl]) {
        const n = normalizeUrl(u) ?? u;
        if (seen.has(n)) loop = true;
        seen.add(n);
      }
      const evidence = chainEvidence(page);
      // Each redirecting URL is its own problem: the URL is the subject.
      const subject = resourceSubject(page.url, snapshot.origin);
      const issues: Issue[] = [];
      if (loop)
        issues.push({
          outcome: 'fail',
          message: 'The URL is caught in a redirect loop (or a chain that never ends).',
          evidence,
          subject,
        });
      else if (hops >= 3)
        issues.push({
          outcome: 'fail',
          message: `The URL redirects ${hops} times before reaching the final page.`,
          evidence,
          subject,
        });
      else if (hops === 2)
        issues.push({
          outcome: 'warn',
          message: 'The URL redirects twice before reaching the final page.',
          evidence,
          subject,
        });
      return pageIssues(issues);
    },
  );
});

// ── SEO_BROKEN_LINK ──────────────────────────────────────────────────────────────────────────────

/**
 * Units: every crawled page found through a link on another page and every checked link or resource
 * target, and every checked link to another site. Score = share of targets that are not broken
 * (isBroken); unreachable targets are not counted. Each finding names every crawled page referencing
 * its target: the crawl keeps a target's first referrers and the exact count, and each page keeps the
 * hashes of the URLs it references (referenceHashes), matched against the broken targets here.
 */
export const brokenLink = defineAnalyzer<Float64Array | null>({
  code: 'SEO_BROKEN_LINK',
  observe: (p) => (p.isHtml ? referenceHashes(p) : null),
  finish(snapshot, observed) {
    const targets = linkTargets(snapshot);
    if (targets.size === 0) return notApplicable();
    const broken = new Map<number, BrokenTarget>();
    for (const [url, t] of targets) if (isBroken(t)) broken.set(hash52(url), { ...t, url, referrers: [] });
    if (broken.size === 0) return { status: 'pass', score: 1, findings: [] };
    for (const o of observed) if (o.value) for (const h of o.value) broken.get(h)?.referrers.push(o.url);
    const score = 1 - broken.size / targets.size;
    const findings = [...broken.values()]
      .map(named)
      .sort((a, b) => b.count - a.count)
      .map(({ target: t, pages, count }): FindingDraft => {
        const from = count > 0 ? ` It is linked from ${plural(count, 'page')}.` : '';
        const shown = t.referrers.length > 0 ? t.referrers : t.foundOn;
        return {
          message: `${TARGET_NOUN[t.kind]} answers ${statusText(t.status)}.${from}`,
          evidence: truncate(
            `${t.url} → HTTP ${t.status}${shown.length > 0 ? `; linked from ${shown.slice(0, 3).join(', ')}` : ''}`,
            EVIDENCE_MAX,
          ),
          urls: [t.url, ...pages],
          subject: resourceSubject(t.url, snapshot.origin),
        };
      });
    return { status: 'fail', score, findings: foldFindings(findings, 'broken targets') };
  },
});

/** Every link and resource target the crawl saw answer, by normalized URL (the first record wins). */
function linkTargets(snapshot: CrawlSnapshot): Map<string, LinkTarget> {
  const targets = new Map<string, LinkTarget>();
  for (const p of snapshot.pages) {
    // Pages no crawled page links to (the home page, sitemap-only URLs) are SEO_HTTP_STATUS_ERROR's.
    if (p.depth === 0 || (p.foundOn ?? []).length === 0) continue;
    const u = normalizeUrl(p.url) ?? p.url;
    const foundOn = p.foundOn ?? [];
    if (!targets.has(u))
      targets.set(u, { status: p.status, foundOn, linkedFrom: p.linkedFrom ?? foundOn.length, kind: 'page' });
  }
  for (const c of snapshot.linkChecks ?? []) {
    if (c.status === null) continue;
    const kind = (c.kind ?? 'page') === 'page' ? (sameSite(snapshot, c.url) ? 'page' : 'external') : 'resource';
    const u = normalizeUrl(c.url) ?? c.url;
    const linkedFrom = c.linkedFrom ?? c.foundOn.length;
    if (!targets.has(u)) targets.set(u, { status: c.status, foundOn: c.foundOn, linkedFrom, kind });
  }
  return targets;
}

/**
 * The pages referencing the target, named once each: every page seen referencing it, and the crawl's
 * first referrers, both by the URL that served them. The count is their number; the crawl's count
 * where no page was seen referencing it (links only a rendered DOM has, parts observed by older code).
 */
function named(target: BrokenTarget): { target: BrokenTarget; pages: string[]; count: number } {
  const pages = [...new Set([...target.foundOn, ...target.referrers])].filter((url) => url !== target.url);
  return { target, pages, count: target.referrers.length > 0 ? pages.length : target.linkedFrom };
}

interface LinkTarget {
  status: number;
  foundOn: readonly string[];
  linkedFrom: number;
  kind: 'page' | 'resource' | 'external';
}

/** A broken target, with every crawled page seen referencing it. */
type BrokenTarget = LinkTarget & { url: string; referrers: string[] };

const TARGET_NOUN = {
  page: 'An internal link target',
  resource: 'A resource target',
  external: 'A link to another site',
} as const;

/**
 * Any 4xx/5xx of the site's own pages and of resources; another site's page only when it says it is
 * gone (404, 410): many sites answer crawlers 403 or 429 while serving people normally.
 */
function isBroken(t: LinkTarget): boolean {
  if (t.kind === 'external') return t.status === 404 || t.status === 410;
  return t.status >= 400;
}

export const SEO_SITE_ANALYZERS: readonly Analyzer[] = [
  robotsBlocked,
  robotsTxtInvalid,
  sitemapInvalid,
  brokenLink,
  redirectChain,
  llmsTxt,
];
