import { STATUS_CODES } from 'node:http';
import robotsParser from 'robots-parser';
import { attr, metaNamed, truncate, type ParsedPage } from './parse';
import { xRobotsNoindex } from './seo-page';
import { headerValues, type SnapshotPage } from './snapshot';
import { homeUrl, normalizeUrl, pageStatusIndex, plural, sameSite } from './site-util';
import {
  EVIDENCE_MAX, MAX_FINDINGS_PER_ANALYZER, MAX_URLS_PER_FINDING, PAGE_PASS, defineAnalyzer, notApplicable, pageIssues, perPage,
  siteAnalyzer, siteOutcome, type Analyzer, type FindingDraft, type Issue,
} from './types';

/** Site-level SEO checks: robots.txt, sitemaps, llms.txt, redirects and broken links. */

function statusText(status: number): string {
  const reason = STATUS_CODES[status];
  return `HTTP ${status}${reason ? ` (${reason})` : ''}`;
}

function worst(a: 'pass' | 'warn' | 'fail', b: 'pass' | 'warn' | 'fail'): 'pass' | 'warn' | 'fail' {
  if (a === 'fail' || b === 'fail') return 'fail';
  return a === 'warn' || b === 'warn' ? 'warn' : 'pass';
}

// ── SEO_ROBOTS_TXT_INVALID ───────────────────────────────────────────────────────────────────────

/** Google and Bing read at most 500 KiB of robots.txt; rules after that are ignored. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/** RFC 9309 rules plus the widely supported extensions (as Lighthouse's robots-txt audit accepts). */
const ROBOTS_DIRECTIVES = new Set([
  'user-agent', 'allow', 'disallow', 'sitemap', 'crawl-delay', 'host', 'clean-param', 'request-rate',
  'visit-time', 'noindex', 'content-signal',
]);

export interface RobotsLineProblem {
  line: number;
  text: string;
  problem: string;
  /** Unknown directives are ignored by crawlers (warn); the others change or drop rules (fail). */
  outcome: 'warn' | 'fail';
}

/** Lint of robots.txt lines, after Lighthouse's robots-txt audit. */
export function lintRobotsTxt(body: string, max = 50): RobotsLineProblem[] {
  const out: RobotsLineProblem[] = [];
  let inGroup = false;
  const lines = body.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length && out.length < max; i++) {
    const raw = lines[i]!;
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const add = (problem: string, outcome: 'warn' | 'fail' = 'fail') => out.push({ line: i + 1, text: truncate(raw.trim(), 100), problem, outcome });
    const colon = line.indexOf(':');
    if (colon <= 0) {
      add('syntax not understood');
      continue;
    }
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (!ROBOTS_DIRECTIVES.has(key)) {
      add('unknown directive', /^[a-z-]+$/.test(key) ? 'warn' : 'fail');
      continue;
    }
    if (key === 'user-agent') {
      inGroup = true;
      if (value === '') add('empty user-agent');
    } else if (key === 'allow' || key === 'disallow') {
      if (!inGroup) add('rule before any User-agent line');
      else if (value !== '' && !value.startsWith('/') && !value.startsWith('*')) add('path must start with "/" or "*"');
      else if (value.indexOf('$') !== -1 && value.indexOf('$') !== value.length - 1) add('"$" is only allowed at the end of a path');
    } else if (key === 'sitemap') {
      if (!/^https?:\/\/\S+$/i.test(value)) add('sitemap URL is not absolute');
    } else if (key === 'crawl-delay') {
      if (!/^\d+(\.\d+)?$/.test(value)) add('crawl-delay is not a number');
    }
  }
  return out;
}

export const robotsTxtInvalid = siteAnalyzer('SEO_ROBOTS_TXT_INVALID', (snapshot) => {
  const r = snapshot.robots;
  if (r.kind === 'unreachable') {
    return siteOutcome('fail', [{ message: `robots.txt could not be fetched (${truncate(r.error, 120)}); search engines stop crawling while it is unreachable.`, evidence: truncate(`GET ${r.url}: ${r.error}`, EVIDENCE_MAX), urls: [r.url] }]);
  }
  if (r.status >= 500) {
    return siteOutcome('fail', [{ message: `robots.txt answers ${statusText(r.status)}; search engines treat a server error as "do not crawl".`, evidence: `GET ${r.url} → HTTP ${r.status}`, urls: [r.url] }]);
  }
  if (r.status >= 400) return siteOutcome('pass'); // no robots.txt: everything may be crawled (RFC 9309)
  if (r.status < 200 || r.status > 299) {
    return siteOutcome('warn', [{ message: `robots.txt answers ${statusText(r.status)} instead of 200.`, evidence: `GET ${r.url} → HTTP ${r.status}`, urls: [r.url] }]);
  }
  const findings: FindingDraft[] = [];
  let status: 'pass' | 'warn' | 'fail' = 'pass';
  if (/^\s*</.test(r.body.slice(0, 256))) {
    return siteOutcome('fail', [{ message: 'robots.txt answers 200 with an HTML page instead of plain-text rules.', evidence: truncate(`GET ${r.url} → ${r.body.trimStart().slice(0, 120)}`, EVIDENCE_MAX), urls: [r.url] }]);
  }
  const size = Buffer.byteLength(r.body, 'utf8');
  if (size >= ROBOTS_MAX_BYTES) {
    status = 'warn';
    findings.push({ message: `robots.txt is ${size.toLocaleString('en-US')} bytes or more; search engines ignore everything after the first 500 KiB.`, evidence: `${r.url}: ${size} bytes`, urls: [r.url] });
  }
  // Only the part crawlers read is linted (and the work stays bounded).
  const read = r.body.length > ROBOTS_MAX_BYTES ? r.body.slice(0, r.body.lastIndexOf('\n', ROBOTS_MAX_BYTES) + 1) : r.body;
  const problems = lintRobotsTxt(read);
  for (const outcome of ['fail', 'warn'] as const) {
    const list = problems.filter((p) => p.outcome === outcome);
    if (list.length === 0) continue;
    status = worst(status, outcome);
    findings.push({
      message: outcome === 'fail'
        ? `robots.txt has ${plural(list.length, 'line')} that crawlers cannot parse or apply${list.length >= 50 ? ' (first 50 counted)' : ''}.`
        : `robots.txt has ${plural(list.length, 'unknown directive')}, which crawlers ignore.`,
      evidence: truncate(list.slice(0, 5).map((p) => `line ${p.line}: ${p.text} (${p.problem})`).join('; '), EVIDENCE_MAX),
      urls: [r.url],
    });
  }
  return siteOutcome(status, findings);
});

// ── SEO_ROBOTS_BLOCKED ───────────────────────────────────────────────────────────────────────────

/** Search-engine agents whose view matters for SEO (groups fall back to `*` as RFC 9309 says). */
const SEARCH_AGENTS = ['Googlebot', 'Bingbot'] as const;
const MAX_ROBOTS_CHECKS = 5_000;

type Importance = 'home' | 'sitemap' | 'linked';

/**
 * Important pages: the home page, URLs listed in a sitemap, and pages linked from the home page
 * (depth 1), checked against the rules for Googlebot and Bingbot. A blocked home page or a blocked
 * sitemap URL fails (the site contradicts itself or vanishes from search); a blocked page linked from
 * the home page warns, since sites often disallow /cart or /login on purpose.
 */
export const robotsBlocked = siteAnalyzer('SEO_ROBOTS_BLOCKED', (snapshot, observed) => {
  const r = snapshot.robots;
  if (r.kind === 'unreachable' || r.status >= 500) return notApplicable(); // SEO_ROBOTS_TXT_INVALID reports it
  if (r.status < 200 || r.status > 299) return siteOutcome('pass'); // 4xx: everything may be crawled
  const rules = robotsParser(r.url, r.body.slice(0, ROBOTS_MAX_BYTES));
  const candidates = new Map<string, Importance>();
  const add = (url: string | null, why: Importance) => {
    if (url === null || candidates.size >= MAX_ROBOTS_CHECKS) return;
    const prev = candidates.get(url);
    if (prev === undefined || rank(why) < rank(prev)) candidates.set(url, why);
  };
  add(homeUrl(snapshot), 'home');
  for (const s of snapshot.sitemaps ?? []) for (const loc of s.locs ?? []) if (sameSite(snapshot, loc)) add(normalizeUrl(loc), 'sitemap');
  for (const d of snapshot.robotsDisallowed ?? []) {
    if (d.inSitemap) add(normalizeUrl(d.url), 'sitemap');
    else if (d.depth <= 1) add(normalizeUrl(d.url), 'linked');
  }
  for (const o of observed) if (o.page.depth <= 1) add(normalizeUrl(o.page.url), o.page.depth === 0 ? 'home' : 'linked');

  const blocked = new Map<string, { why: Importance; urls: string[]; agent: string; line: number }>();
  for (const [url, why] of candidates) {
    for (const agent of SEARCH_AGENTS) {
      if (rules.isAllowed(url, agent) !== false) continue;
      const line = rules.getMatchingLineNumber(url, agent);
      const key = `${why}\u0000${line}`;
      const g = blocked.get(key) ?? { why, urls: [], agent, line };
      g.urls.push(url);
      blocked.set(key, g);
      break;
    }
  }
  if (blocked.size === 0) return siteOutcome('pass');
  const lines = r.body.split(/\r\n|\r|\n/);
  const groups = [...blocked.values()].sort((a, b) => rank(a.why) - rank(b.why) || b.urls.length - a.urls.length);
  const findings = groups.slice(0, MAX_FINDINGS_PER_ANALYZER).map((g): FindingDraft => {
    const ruleText = g.line > 0 ? `robots.txt line ${g.line}: ${(lines[g.line - 1] ?? '').trim()}` : 'robots.txt';
    const what = g.why === 'home' ? 'the home page' : g.why === 'sitemap' ? `${plural(g.urls.length, 'URL')} listed in the sitemap` : `${plural(g.urls.length, 'page')} linked from the home page`;
    return {
      message: `robots.txt blocks ${what} for ${g.agent}.`,
      evidence: truncate(`${ruleText} (matches ${g.urls[0]})`, EVIDENCE_MAX),
      urls: g.urls.slice(0, MAX_URLS_PER_FINDING),
    };
  });
  const failed = groups.some((g) => g.why !== 'linked');
  return siteOutcome(failed ? 'fail' : 'warn', findings);
});

function rank(why: Importance): number {
  return why === 'home' ? 0 : why === 'sitemap' ? 1 : 2;
}

// ── SEO_SITEMAP_INVALID ──────────────────────────────────────────────────────────────────────────

/** sitemaps.org limits per file. */
export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

function metaNoindex(content: string): boolean {
  return content.toLowerCase().split(/[\s,]+/).some((t) => t === 'noindex' || t === 'none');
}

/** Whether the page asks not to be indexed (robots/googlebot meta or X-Robots-Tag). */
export function pageNoindex(p: ParsedPage): boolean {
  if (headerValues(p.page.headers, 'x-robots-tag').some(xRobotsNoindex)) return true;
  if (!p.isHtml) return false;
  return ['robots', 'googlebot'].some((n) => metaNamed(p, n).some((m) => metaNoindex(attr(m, 'content') ?? '')));
}

export const sitemapInvalid = defineAnalyzer<boolean>({
  code: 'SEO_SITEMAP_INVALID',
  observe: pageNoindex,
  finish(snapshot, observed) {
    const fetches = snapshot.sitemaps;
    if (fetches === undefined) return notApplicable();
    const findings: FindingDraft[] = [];
    let status: 'pass' | 'warn' | 'fail' = 'pass';
    const flag = (outcome: 'warn' | 'fail', d: FindingDraft) => {
      status = worst(status, outcome);
      findings.push(d);
    };
    const valid = fetches.filter((f) => f.status !== null && f.status >= 200 && f.status < 300 && !f.xmlError && (f.root === 'urlset' || f.root === 'sitemapindex'));
    if (valid.length === 0) {
      const tried = fetches.map((f) => `${f.url} → ${f.status === null ? `unreachable${f.error ? ` (${f.error})` : ''}` : f.xmlError ? 'malformed XML' : f.status >= 200 && f.status < 300 ? `<${f.root ?? '?'}>` : `HTTP ${f.status}`}`);
      flag('fail', {
        message: fetches.length === 0 ? 'The site has no XML sitemap: robots.txt names none and /sitemap.xml was not found.' : 'No valid XML sitemap was found.',
        evidence: truncate(tried.length > 0 ? tried.join('; ') : '(no Sitemap: line in robots.txt)', EVIDENCE_MAX),
        urls: fetches.length > 0 ? fetches.map((f) => f.url).slice(0, MAX_URLS_PER_FINDING) : [homeUrl(snapshot)],
      });
    }
    for (const f of fetches) {
      if (f.status === null || f.status < 200 || f.status > 299) {
        // A missing default /sitemap.xml only matters when no sitemap exists at all (reported above).
        if (f.source !== 'default' && valid.length > 0) {
          flag('fail', { message: `A sitemap ${f.source === 'robots' ? 'named in robots.txt' : 'listed in a sitemap index'} ${f.status === null ? 'could not be fetched' : `answers ${statusText(f.status)}`}.`, evidence: truncate(`GET ${f.url} → ${f.status ?? f.error ?? 'unreachable'}`, EVIDENCE_MAX), urls: [f.url] });
        }
        continue;
      }
      if (f.xmlError) {
        flag('fail', { message: 'A sitemap is not well-formed XML.', evidence: truncate(`${f.url}: ${f.xmlError}`, EVIDENCE_MAX), urls: [f.url] });
      } else if (f.root !== 'urlset' && f.root !== 'sitemapindex') {
        flag('fail', { message: `A sitemap's root element is <${f.root ?? 'unknown'}>, not <urlset> or <sitemapindex>.`, evidence: truncate(`${f.url}: <${f.root ?? '?'}>`, EVIDENCE_MAX), urls: [f.url] });
      }
      if ((f.locCount ?? 0) > SITEMAP_MAX_URLS) {
        flag('fail', { message: `A sitemap lists ${f.locCount!.toLocaleString('en-US')} URLs; the limit is 50,000 per file.`, evidence: `${f.url}: ${f.locCount} <loc> entries`, urls: [f.url] });
      }
      if ((f.bytes ?? 0) > SITEMAP_MAX_BYTES) {
        flag('fail', { message: `A sitemap is ${f.bytes!.toLocaleString('en-US')} bytes uncompressed; the limit is 50 MiB.`, evidence: `${f.url}: ${f.bytes} bytes`, urls: [f.url] });
      }
    }
    // Entries of <urlset> sitemaps that the crawl (or link checks) saw answering non-200 or noindex.
    const statuses = pageStatusIndex(snapshot.pages);
    for (const c of snapshot.linkChecks ?? []) {
      const u = normalizeUrl(c.url);
      if (u !== null && c.status !== null && !statuses.has(u)) statuses.set(u, { status: c.status });
    }
    const noindexUrls = new Set<string>();
    for (const o of observed) if (o.value) { const u = normalizeUrl(o.url); if (u) noindexUrls.add(u); }
    const bad = new Map<string, { entries: string[]; evidence: string }>();
    for (const f of valid) {
      if (f.root !== 'urlset') continue;
      for (const loc of f.locs ?? []) {
        const u = normalizeUrl(loc);
        if (u === null) continue;
        const s = statuses.get(u);
        let problem: string | null = null;
        if (s && s.status !== 200) problem = s.redirectsTo ? `HTTP ${s.status} redirect to ${s.redirectsTo}` : `HTTP ${s.status}`;
        else if (noindexUrls.has(u)) problem = 'noindex';
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
        message: key === 'noindex'
          ? `The sitemap lists ${plural(g.entries.length, 'URL')} marked noindex.`
          : `The sitemap lists ${plural(g.entries.length, 'URL')} that ${g.entries.length === 1 ? 'does' : 'do'} not answer 200 (errors or redirects).`,
        evidence: truncate(g.evidence, EVIDENCE_MAX),
        urls: g.entries.slice(0, MAX_URLS_PER_FINDING),
      });
    }
    return siteOutcome(status, findings.slice(0, MAX_FINDINGS_PER_ANALYZER));
  },
});

// ── SEO_LLMS_TXT ─────────────────────────────────────────────────────────────────────────────────

/** Info only (weight 0): pass when /llms.txt answers 2xx with text that is not an HTML fallback page. */
export const llmsTxt = siteAnalyzer('SEO_LLMS_TXT', (snapshot) => {
  const f = snapshot.llmsTxt;
  if (f === undefined) return notApplicable();
  if (f.kind === 'unreachable') {
    return siteOutcome('fail', [{ message: '/llms.txt could not be fetched.', evidence: truncate(`GET ${f.url}: ${f.error}`, EVIDENCE_MAX), urls: [f.url] }]);
  }
  if (f.status < 200 || f.status > 299) {
    return siteOutcome('fail', [{ message: `The site has no /llms.txt (it answers ${statusText(f.status)}).`, evidence: `GET ${f.url} → HTTP ${f.status}`, urls: [f.url] }]);
  }
  const type = (f.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const start = (f.bodyStart ?? '').trimStart();
  if (type === 'text/html' || type === 'application/xhtml+xml' || start.startsWith('<')) {
    return siteOutcome('fail', [{ message: '/llms.txt answers 200 with an HTML page (a fallback), not a Markdown file.', evidence: truncate(`GET ${f.url} → HTTP ${f.status}, Content-Type: ${f.contentType ?? '(absent)'}`, EVIDENCE_MAX), urls: [f.url] }]);
  }
  if (f.bodyStart !== undefined && start === '') {
    return siteOutcome('fail', [{ message: '/llms.txt is empty.', evidence: `GET ${f.url} → HTTP ${f.status}, empty body`, urls: [f.url] }]);
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
export const redirectChain = siteAnalyzer('SEO_REDIRECT_CHAIN', (_snapshot, observed) => {
  return perPage(observed.map((o) => ({ url: o.page.url, page: o.page })), ({ page }) => {
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
    const issues: Issue[] = [];
    if (loop) issues.push({ outcome: 'fail', message: 'The URL is caught in a redirect loop (or a chain that never ends).', evidence });
    else if (hops >= 3) issues.push({ outcome: 'fail', message: `The URL redirects ${hops} times before reaching the final page.`, evidence });
    else if (hops === 2) issues.push({ outcome: 'warn', message: 'The URL redirects twice before reaching the final page.', evidence });
    return pageIssues(issues);
  });
});

// ── SEO_BROKEN_LINK ──────────────────────────────────────────────────────────────────────────────

/**
 * Units: every crawled page found through a link (depth ≥ 1) and every checked link or resource
 * target. Score = share of targets that do not answer 4xx/5xx; unreachable targets are not counted.
 */
export const brokenLink = siteAnalyzer('SEO_BROKEN_LINK', (snapshot) => {
  const targets = new Map<string, { status: number; foundOn: readonly string[]; kind: string }>();
  for (const p of snapshot.pages) {
    if (p.depth === 0) continue;
    const u = normalizeUrl(p.url) ?? p.url;
    if (!targets.has(u)) targets.set(u, { status: p.status, foundOn: p.foundOn ?? [], kind: 'page' });
  }
  for (const c of snapshot.linkChecks ?? []) {
    if (c.status === null) continue;
    // Links to other sites are not ours to report; a broken embedded resource is, wherever it is hosted.
    if ((c.kind ?? 'page') === 'page' && !sameSite(snapshot, c.url)) continue;
    const u = normalizeUrl(c.url) ?? c.url;
    if (!targets.has(u)) targets.set(u, { status: c.status, foundOn: c.foundOn, kind: c.kind ?? 'page' });
  }
  if (targets.size === 0) return notApplicable();
  const broken = [...targets].filter(([, t]) => t.status >= 400).sort((a, b) => b[1].foundOn.length - a[1].foundOn.length);
  const score = 1 - broken.length / targets.size;
  if (broken.length === 0) return { status: 'pass', score: 1, findings: [] };
  const findings = broken.slice(0, MAX_FINDINGS_PER_ANALYZER).map(([url, t]): FindingDraft => {
    const from = t.foundOn.length > 0 ? ` It is linked from ${plural(t.foundOn.length, 'page')}.` : '';
    return {
      message: `A${t.kind === 'resource' ? ' resource' : 'n internal link'} target answers ${statusText(t.status)}.${from}`,
      evidence: truncate(`${url} → HTTP ${t.status}${t.foundOn.length > 0 ? `; linked from ${t.foundOn.slice(0, 3).join(', ')}` : ''}`, EVIDENCE_MAX),
      urls: [url, ...t.foundOn.filter((f) => f !== url)].slice(0, MAX_URLS_PER_FINDING),
    };
  });
  if (broken.length > MAX_FINDINGS_PER_ANALYZER) findings[findings.length - 1]!.message += ` ${broken.length - MAX_FINDINGS_PER_ANALYZER} more broken targets not listed.`;
  return { status: 'fail', score, findings };
});

export const SEO_SITE_ANALYZERS: readonly Analyzer[] = [robotsBlocked, robotsTxtInvalid, sitemapInvalid, brokenLink, redirectChain, llmsTxt];
