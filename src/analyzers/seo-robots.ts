import robotsParser from 'robots-parser';
import { truncate } from './parse';
import { homeUrl, normalizeUrl, plural, sameSite, statusText, worstStatus } from './site-util';
import { EVIDENCE_MAX, foldFindings, notApplicable, siteAnalyzer, siteOutcome, type FindingDraft } from './types';

/** robots.txt as search engines read it: whether it parses (SEO_ROBOTS_TXT_INVALID) and whether it blocks important pages (SEO_ROBOTS_BLOCKED). */

// ── SEO_ROBOTS_TXT_INVALID ───────────────────────────────────────────────────────────────────────

/** Google and Bing read at most 500 KiB of robots.txt; rules after that are ignored. */
const ROBOTS_MAX_BYTES = 500 * 1024;

/** RFC 9309 rules plus the widely supported extensions (as Lighthouse's robots-txt audit accepts). */
const ROBOTS_DIRECTIVES = new Set([
  'user-agent',
  'allow',
  'disallow',
  'sitemap',
  'crawl-delay',
  'host',
  'clean-param',
  'request-rate',
  'visit-time',
  'noindex',
  'content-signal',
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
    const add = (problem: string, outcome: 'warn' | 'fail' = 'fail') =>
      out.push({ line: i + 1, text: truncate(raw.trim(), 100), problem, outcome });
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
      else if (value.indexOf('$') !== -1 && value.indexOf('$') !== value.length - 1)
        add('"$" is only allowed at the end of a path');
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
    return siteOutcome('fail', [
      {
        message: `robots.txt could not be fetched (${truncate(r.error, 120)}); search engines stop crawling while it is unreachable.`,
        evidence: truncate(`GET ${r.url}: ${r.error}`, EVIDENCE_MAX),
        urls: [r.url],
      },
    ]);
  }
  if (r.status >= 500) {
    return siteOutcome('fail', [
      {
        message: `robots.txt answers ${statusText(r.status)}; search engines treat a server error as "do not crawl".`,
        evidence: `GET ${r.url} → HTTP ${r.status}`,
        urls: [r.url],
      },
    ]);
  }
  if (r.status >= 400) return siteOutcome('pass'); // no robots.txt: everything may be crawled (RFC 9309)
  if (r.status < 200 || r.status > 299) {
    return siteOutcome('warn', [
      {
        message: `robots.txt answers ${statusText(r.status)} instead of 200.`,
        evidence: `GET ${r.url} → HTTP ${r.status}`,
        urls: [r.url],
      },
    ]);
  }
  const findings: FindingDraft[] = [];
  let status: 'pass' | 'warn' | 'fail' = 'pass';
  if (/^\s*</.test(r.body.slice(0, 256))) {
    return siteOutcome('fail', [
      {
        message: 'robots.txt answers 200 with an HTML page instead of plain-text rules.',
        evidence: truncate(`GET ${r.url} → ${r.body.trimStart().slice(0, 120)}`, EVIDENCE_MAX),
        urls: [r.url],
      },
    ]);
  }
  const size = Buffer.byteLength(r.body, 'utf8');
  if (size >= ROBOTS_MAX_BYTES) {
    status = 'warn';
    findings.push({
      message: `robots.txt is ${size.toLocaleString('en-US')} bytes or more; search engines ignore everything after the first 500 KiB.`,
      evidence: `${r.url}: ${size} bytes`,
      urls: [r.url],
      subject: 'too large',
    });
  }
  // Only the part crawlers read is linted (and the work stays bounded).
  const read =
    r.body.length > ROBOTS_MAX_BYTES ? r.body.slice(0, r.body.lastIndexOf('\n', ROBOTS_MAX_BYTES) + 1) : r.body;
  const problems = lintRobotsTxt(read);
  for (const outcome of ['fail', 'warn'] as const) {
    const list = problems.filter((p) => p.outcome === outcome);
    if (list.length === 0) continue;
    status = worstStatus(status, outcome);
    findings.push({
      message:
        outcome === 'fail'
          ? `robots.txt has ${plural(list.length, 'line')} that crawlers cannot parse or apply${list.length >= 50 ? ' (first 50 counted)' : ''}.`
          : `robots.txt has ${plural(list.length, 'unknown directive')}, which crawlers ignore.`,
      evidence: truncate(
        list
          .slice(0, 5)
          .map((p) => `line ${p.line}: ${p.text} (${p.problem})`)
          .join('; '),
        EVIDENCE_MAX,
      ),
      urls: [r.url],
      subject: outcome === 'fail' ? 'unparsable lines' : 'unknown directives',
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
  for (const s of snapshot.sitemaps ?? [])
    for (const loc of s.locs ?? []) if (sameSite(snapshot, loc)) add(normalizeUrl(loc), 'sitemap');
  for (const d of snapshot.robotsDisallowed ?? []) {
    if (d.inSitemap) add(normalizeUrl(d.url), 'sitemap');
    else if (d.depth !== null && d.depth <= 1) add(normalizeUrl(d.url), 'linked');
  }
  for (const o of observed)
    if (o.page.depth !== null && o.page.depth <= 1)
      add(normalizeUrl(o.page.url), o.page.depth === 0 ? 'home' : 'linked');

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
  const subjects = new Set<string>();
  const findings = groups.map((g): FindingDraft => {
    // Subject: what is blocked and the rule's text (its line number moves when lines are added above).
    let subject = `${g.why} ${g.line > 0 ? (lines[g.line - 1] ?? '').trim().toLowerCase() : ''}`;
    if (subjects.has(subject)) subject += ` line ${g.line}`;
    subjects.add(subject);
    const ruleText = g.line > 0 ? `robots.txt line ${g.line}: ${(lines[g.line - 1] ?? '').trim()}` : 'robots.txt';
    const what =
      g.why === 'home'
        ? 'the home page'
        : g.why === 'sitemap'
          ? `${plural(g.urls.length, 'URL')} listed in the sitemap`
          : `${plural(g.urls.length, 'page')} linked from the home page`;
    return {
      message: `robots.txt blocks ${what} for ${g.agent}.`,
      evidence: truncate(`${ruleText} (matches ${g.urls[0]})`, EVIDENCE_MAX),
      urls: g.urls,
      subject,
    };
  });
  const failed = groups.some((g) => g.why !== 'linked');
  return siteOutcome(failed ? 'fail' : 'warn', foldFindings(findings, 'blocking rules'));
});

function rank(why: Importance): number {
  return why === 'home' ? 0 : why === 'sitemap' ? 1 : 2;
}
