import { TIER_RULES } from '../../accounts/tiers';
import { mergeBrowserStage } from '../../analyzers/browser-stage';
import type { AnalyzerCode } from '../../analyzers/catalog';
import { FindingIdAllocator, makeAnalyzerResult, makeFinding } from '../../analyzers/findings';
import type { AnalyzerResult, AuditJson, Finding, Tier } from '../../schemas/audit';
import { assembleAuditJson } from '../assemble';
import { EVIDENCE } from './evidence';
import { OUTCOME_RATES } from './outcome-rates';
import { syntheticBrowserStage } from './browser';
import { drawOutcomes, HTML_CATALOG, type Outcome } from './outcomes';
import { crawlDurationMs, crawledPages } from './pages';
import { seededStreams, type RngStreams } from './rng';
import { buildSite, SYNTHETIC_MAX_LISTED_PAGES, type Site } from './site';

export { SYNTHETIC_MAX_LISTED_PAGES } from './site';

/**
 * Test-mode audits: realistic, deterministic, and free of network access. Everything is drawn from
 * seeded PRNG streams (rng.ts), so the same test key and domain give the same findings, analyzers
 * and score on every run. The tier changes only how many pages the crawl reports, not what was
 * found, because the same audit id can be asked at several tiers — except the browser stage, which
 * samples as many pages as the tier does (a page sampled at two tiers measures the same). The whole
 * catalog runs; findings and the score come from the real analyzers' merge and scoring modules.
 */

export interface SyntheticAuditInput {
  auditId: string;
  workspaceId: string;
  /** Normalized origin, e.g. https://example.com */
  domain: string;
  tier: Tier;
  createdAt: string;
  startedAt: string;
  completedAt: string;
}

/** Findings cite pages among the first ones crawled, which every tier crawls. */
const FINDING_URL_POOL = 10;

export function syntheticAudit(input: SyntheticAuditInput): AuditJson {
  const stream = seededStreams(input.workspaceId, input.domain);
  const site = buildSite(input.domain, stream('site'));
  const budget = TIER_RULES[input.tier].pageBudget;
  const pagesCrawled = Math.min(site.size, budget);
  const listed = site.pages.slice(0, Math.min(pagesCrawled, SYNTHETIC_MAX_LISTED_PAGES));
  const pool = site.pages.slice(0, Math.min(site.size, FINDING_URL_POOL)).map((p) => p.url);
  const outcomes = drawOutcomes(input.domain, site, stream);
  const { analyzers, findings, affectedBy } = analyzerResults(input.domain, site, outcomes, pool, stream);

  const assembled = assembleAuditJson({
    auditId: input.auditId,
    domain: input.domain,
    mode: 'test',
    tier: input.tier,
    createdAt: input.createdAt,
    startedAt: input.startedAt,
    completedAt: input.completedAt,
    pageBudget: budget,
    crawlDurationMs: crawlDurationMs(pagesCrawled, site),
    pages: crawledPages(listed, site, affectedBy, stream('crawl')),
    pagesCrawled,
    analyzers,
    findings,
  });
  const stage = syntheticBrowserStage({
    site,
    tier: input.tier,
    listed,
    broken: affectedBy.get('SEO_HTTP_STATUS_ERROR') ?? new Set(),
    unsizedImages: affectedBy.get('PERF_IMG_UNSIZED') ?? new Set(),
    stream,
  });
  return mergeBrowserStage(assembled, stage);
}

interface AnalyzerResults {
  analyzers: AnalyzerResult[];
  findings: Finding[];
  /** The pages each analyzer's findings cite, so that the crawl summary agrees with them. */
  affectedBy: Map<AnalyzerCode, Set<string>>;
}

/** Every analyzer's result, and the findings of those that failed or warned, citing pages of `pool`. */
function analyzerResults(
  domain: string,
  site: Site,
  outcomes: ReadonlyMap<AnalyzerCode, Outcome>,
  pool: readonly string[],
  stream: RngStreams,
): AnalyzerResults {
  const ids = new FindingIdAllocator();
  const results: AnalyzerResults = { analyzers: [], findings: [], affectedBy: new Map() };
  for (const entry of HTML_CATALOG) {
    const o = outcomes.get(entry.code)!;
    const rates = OUTCOME_RATES[entry.code];
    // Page checks: score is the share of pages passing, a warning counting half (as perPage does).
    const lost = o.status === 'fail' ? o.share : o.status === 'warn' ? o.share / 2 : 0;
    results.analyzers.push(makeAnalyzerResult(entry.code, o.status, 1 - lost));
    if (o.status !== 'fail' && o.status !== 'warn') continue;
    const rng = stream(`evidence:${entry.code}`);
    let urls: string[];
    if (rates.kind === 'site') urls = [pool[0]!];
    else if (o.share === 1) urls = [...pool];
    else {
      // Error pages and stray noindex are never the home page (that would fail or block the audit).
      const candidates =
        pool.length > 1 && (entry.code === 'SEO_HTTP_STATUS_ERROR' || entry.code === 'SEO_NOINDEX')
          ? pool.slice(1)
          : pool;
      urls = rng.sample(candidates, Math.max(1, Math.round(o.share * candidates.length)));
    }
    results.affectedBy.set(entry.code, new Set(urls));
    for (const d of EVIDENCE[entry.code]({
      domain,
      site,
      status: o.status,
      rng,
      urls,
      sitewide: rates.kind === 'page' && o.share === 1,
    })) {
      results.findings.push(makeFinding(entry.code, { ...d, urls: d.urls ?? urls }, ids));
    }
  }
  return results;
}
