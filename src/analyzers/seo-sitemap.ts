import { clientRedirect } from './client-redirect';
import { attr, metaNamed, truncate, type ParsedPage } from './parse';
import { metaNoindex, xRobotsNoindex } from './seo-page';
import { headerValues, type CrawlSnapshot, type SitemapFetch } from './snapshot';
import { homeUrl, knownUrlStatuses, normalizeUrl, plural, sameSite, statusText, worstStatus } from './site-util';
import { resourceSubject } from './subject';
import {
  EVIDENCE_MAX,
  foldFindings,
  defineAnalyzer,
  notApplicable,
  siteOutcome,
  type FindingDraft,
  type Observed,
} from './types';

/** SEO_SITEMAP_INVALID: the sitemap files themselves, and the entries they list that answer non-200 or noindex. */

/** sitemaps.org limits per file. */
const SITEMAP_MAX_URLS = 50_000;
const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

type Flag = (outcome: 'warn' | 'fail', finding: FindingDraft) => void;

/** The page asks search engines not to index it (X-Robots-Tag, or meta robots / googlebot). */
export function pageNoindex(p: ParsedPage): boolean {
  if (headerValues(p.page.headers, 'x-robots-tag').some(xRobotsNoindex)) return true;
  if (!p.isHtml) return false;
  return ['robots', 'googlebot'].some((n) => metaNamed(p, n).some((m) => metaNoindex(attr(m, 'content') ?? '')));
}

/**
 * Why a page should not be a sitemap entry, seen on the page itself: it asks not to be indexed, or it
 * is a client-side redirect (the problem as the evidence states it); null for a page that may be one.
 */
function entryProblem(p: ParsedPage): string | null {
  if (pageNoindex(p)) return 'noindex';
  const redirect = clientRedirect(p);
  return redirect ? `client-side redirect to ${redirect.to}` : null;
}

export const sitemapInvalid = defineAnalyzer<string | null>({
  code: 'SEO_SITEMAP_INVALID',
  observe: entryProblem,
  finish(snapshot, observed) {
    const fetches = snapshot.sitemaps;
    if (fetches === undefined) return notApplicable();
    const findings: FindingDraft[] = [];
    let status: 'pass' | 'warn' | 'fail' = 'pass';
    const flag: Flag = (outcome, finding) => {
      status = worstStatus(status, outcome);
      findings.push(finding);
    };
    const valid = fetches.filter(
      (f) =>
        f.status !== null &&
        f.status >= 200 &&
        f.status < 300 &&
        !f.xmlError &&
        (f.root === 'urlset' || f.root === 'sitemapindex'),
    );
    if (valid.length === 0) flagNoValidSitemap(snapshot, fetches, flag);
    for (const f of fetches) flagSitemapFile(f, valid.length > 0, flag, snapshot.origin);
    for (const f of valid) flagForeignEntries(snapshot, f, flag);
    flagSitemapEntries(snapshot, valid, observed, flag);
    return siteOutcome(status, foldFindings(findings, 'sitemap problems'));
  },
});

function flagNoValidSitemap(snapshot: CrawlSnapshot, fetches: readonly SitemapFetch[], flag: Flag): void {
  const tried = fetches.map(
    (f) =>
      `${f.url} → ${f.status === null ? `unreachable${f.error ? ` (${f.error})` : ''}` : f.xmlError ? 'malformed XML' : f.status >= 200 && f.status < 300 ? `<${f.root ?? '?'}>` : `HTTP ${f.status}`}`,
  );
  flag('fail', {
    message:
      fetches.length === 0
        ? 'The site has no XML sitemap: robots.txt names none and /sitemap.xml was not found.'
        : 'No valid XML sitemap was found.',
    evidence: truncate(tried.length > 0 ? tried.join('; ') : '(no Sitemap: line in robots.txt)', EVIDENCE_MAX),
    urls: fetches.length > 0 ? fetches.map((f) => f.url) : [homeUrl(snapshot)],
    subject: 'no valid sitemap',
  });
}

/** Subject of a sitemap file's finding: the file's address and the kind of problem (a file can have several). */
function fileSubject(f: SitemapFetch, origin: string, kind: string): string {
  return `${resourceSubject(f.url, origin)} ${kind}`;
}

function flagSitemapFile(f: SitemapFetch, anyValid: boolean, flag: Flag, origin: string): void {
  if (f.status === null || f.status < 200 || f.status > 299) {
    // A missing default /sitemap.xml only matters when no sitemap exists at all (flagNoValidSitemap).
    if (f.source !== 'default' && anyValid) {
      flag('fail', {
        message: `A sitemap ${f.source === 'robots' ? 'named in robots.txt' : 'listed in a sitemap index'} ${f.status === null ? 'could not be fetched' : `answers ${statusText(f.status)}`}.`,
        evidence: truncate(`GET ${f.url} → ${f.status ?? f.error ?? 'unreachable'}`, EVIDENCE_MAX),
        urls: [f.url],
        subject: fileSubject(f, origin, 'unreachable'),
      });
    }
    return;
  }
  if (f.xmlError) {
    flag('fail', {
      message: 'A sitemap is not well-formed XML.',
      evidence: truncate(`${f.url}: ${f.xmlError}`, EVIDENCE_MAX),
      urls: [f.url],
      subject: fileSubject(f, origin, 'malformed'),
    });
  } else if (f.root !== 'urlset' && f.root !== 'sitemapindex') {
    flag('fail', {
      message: `A sitemap's root element is <${f.root ?? 'unknown'}>, not <urlset> or <sitemapindex>.`,
      evidence: truncate(`${f.url}: <${f.root ?? '?'}>`, EVIDENCE_MAX),
      urls: [f.url],
      subject: fileSubject(f, origin, 'root'),
    });
  }
  if ((f.locCount ?? 0) > SITEMAP_MAX_URLS) {
    flag('fail', {
      message: `A sitemap lists ${f.locCount!.toLocaleString('en-US')} URLs; the limit is 50,000 per file.`,
      evidence: `${f.url}: ${f.locCount} <loc> entries`,
      urls: [f.url],
      subject: fileSubject(f, origin, 'too many urls'),
    });
  }
  if ((f.bytes ?? 0) > SITEMAP_MAX_BYTES) {
    flag('fail', {
      message: `A sitemap is ${f.bytes!.toLocaleString('en-US')} bytes uncompressed; the limit is 50 MiB.`,
      evidence: `${f.url}: ${f.bytes} bytes`,
      urls: [f.url],
      subject: fileSubject(f, origin, 'too large'),
    });
  }
}

/** Entries that are not absolute http(s) URLs of the audited site (e.g. `<loc>None</loc>`) make the file invalid. */
function flagForeignEntries(snapshot: CrawlSnapshot, f: SitemapFetch, flag: Flag): void {
  const foreign = (f.locs ?? []).filter((loc) => !/^https?:\/\//i.test(loc) || !sameSite(snapshot, loc));
  if (foreign.length === 0) return;
  flag('fail', {
    message: `A sitemap lists ${plural(foreign.length, 'entry', 'entries')} that ${foreign.length === 1 ? 'is not an absolute URL' : 'are not absolute URLs'} of the site.`,
    evidence: truncate(`${f.url}: ${foreign.map((loc) => `<loc>${loc}</loc>`).join(' ')}`, EVIDENCE_MAX),
    urls: [f.url],
    subject: fileSubject(f, snapshot.origin, 'foreign entries'),
  });
}

/**
 * Entries of <urlset> sitemaps that the crawl (or link checks) saw answering non-200 or redirecting
 * (by 3xx or client-side), or noindex.
 */
function flagSitemapEntries(
  snapshot: CrawlSnapshot,
  valid: readonly SitemapFetch[],
  observed: readonly Observed<string | null>[],
  flag: Flag,
): void {
  const statuses = knownUrlStatuses(snapshot);
  const pageProblems = new Map<string, string>();
  for (const o of observed)
    if (o.value) {
      const u = normalizeUrl(o.url);
      if (u && !pageProblems.has(u)) pageProblems.set(u, o.value);
    }
  const bad = new Map<string, { entries: string[]; evidence: string }>();
  for (const f of valid) {
    if (f.root !== 'urlset') continue;
    for (const loc of f.locs ?? []) {
      const u = normalizeUrl(loc);
      if (u === null) continue;
      const s = statuses.get(u);
      let problem: string | null = null;
      if (s && s.status !== 200)
        problem = s.redirectsTo ? `HTTP ${s.status} redirect to ${s.redirectsTo}` : `HTTP ${s.status}`;
      else problem = pageProblems.get(u) ?? null;
      if (problem === null) continue;
      const key = problem === 'noindex' ? 'noindex' : 'status';
      const g = bad.get(key) ?? { entries: [], evidence: '' };
      if (g.entries.length === 0) g.evidence = `${f.url} lists ${u} (${problem})`;
      g.entries.push(u);
      bad.set(key, g);
    }
  }
  for (const [key, g] of bad) {
    flag('warn', {
      message:
        key === 'noindex'
          ? `The sitemap lists ${plural(g.entries.length, 'URL')} marked noindex.`
          : `The sitemap lists ${plural(g.entries.length, 'URL')} that ${g.entries.length === 1 ? 'does' : 'do'} not answer 200 (errors or redirects).`,
      evidence: truncate(g.evidence, EVIDENCE_MAX),
      urls: g.entries,
      subject: `entries ${key}`,
    });
  }
}
