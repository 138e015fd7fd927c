/**
 * One compared site's pairs of verdicts (ours and Lighthouse's, per page and check) and both sides'
 * performance scores: shared by `compare:lighthouse` and the real-site agreement test
 * (test/unit/compare-real-sites.test.ts).
 */
import type { Pair, SiteScore } from './agreement';
import { CHECKS, lighthouseVerdict, ourVerdict, type Check, type OurFinding } from './checks';
import { differenceFor } from './differences';
import type { LighthousePage } from './lighthouse';
import type { OurAudit } from './our-side';

export interface SiteRun {
  site: string;
  ours: OurAudit;
  lighthouse: LighthousePage[];
}

/** Lighthouse reports by `<site> <path>` (`--lighthouse-cache file`). */
export type LighthouseCache = Record<string, LighthousePage>;

/**
 * Whether Lighthouse judged the page we judged: not when its run failed, nor when the page's own
 * script or meta refresh took it to another URL (a redirecting home page: we judge the HTML the URL
 * answers, Lighthouse the page it lands on).
 */
export function sameDocument(page: LighthousePage): boolean {
  if (page.runtimeError) return false;
  if (!page.finalUrl) return true;
  const path = (u: string) => new URL(u).pathname;
  return path(page.finalUrl) === path(page.url);
}

export function cacheKey(site: string, origin: string, url: string): string {
  return `${site} ${url.slice(origin.length)}`;
}

/**
 * What a cache keeps of a report: the categories and the audits the checks read, so a committed
 * cache stays small. A check added later needs its audits: the report is made again without the cache.
 */
export function forCache(page: LighthousePage): LighthousePage {
  const ids = new Set(CHECKS.flatMap((c) => c.lighthouse));
  const audits = Object.fromEntries(Object.entries(page.audits).filter(([id]) => ids.has(id)));
  return { ...page, audits };
}

export function pairsOf(run: SiteRun): Pair[] {
  const pairs: Pair[] = [];
  for (const lhPage of run.lighthouse) {
    if (!sameDocument(lhPage)) continue;
    const crawled = run.ours.pages.find((p) => p.finalUrl === lhPage.url);
    if (!crawled) throw new Error(`${run.site}: ${lhPage.url} was compared but not crawled`);
    const page = { ...crawled, rendered: run.ours.rendered.has(crawled.finalUrl) };
    for (const check of CHECKS) {
      const ours = ourVerdict(check, page, run.ours.findings, run.ours.statuses);
      const lighthouse = lighthouseVerdict(check, lhPage.audits);
      const messages = namingMessages(check, page, run.ours.findings);
      const difference = differenceFor(check.id, ours, lighthouse, page, lhPage.audits, messages)?.reason;
      pairs.push({ check: check.id, site: run.site, url: lhPage.url, ours, lighthouse, difference });
    }
  }
  return pairs;
}

/** The messages of our findings of a check that name the page (what a documented difference may read). */
function namingMessages(
  check: Check,
  page: { url: string; finalUrl: string },
  findings: readonly OurFinding[],
): string[] {
  return findings
    .filter((f) => check.ours.includes(f.analyzer) && (check.matches ? check.matches(f) : true))
    .filter((f) => {
      const urls = check.pagesOf ? check.pagesOf(f) : f.urls;
      return urls.includes(page.url) || urls.includes(page.finalUrl);
    })
    .map((f) => f.message);
}

/** Lighthouse's side: the mean performance score of the compared pages that answered 2xx, as our stage samples. */
export function siteScore(run: SiteRun): SiteScore {
  const ok = new Set(run.ours.pages.filter((p) => p.status >= 200 && p.status < 300).map((p) => p.finalUrl));
  const perf = run.lighthouse
    .filter((p) => ok.has(p.url))
    .map((p) => p.categories.performance)
    .filter((s): s is number => typeof s === 'number');
  const mean = perf.length === 0 ? 0 : Math.round(perf.reduce((a, b) => a + b, 0) / perf.length);
  return { site: run.site, lighthouse: mean, ours: run.ours.performance.score };
}
