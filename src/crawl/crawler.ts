/**
 * The full live crawl (docs/analyzers.md, Crawl rules): robots.txt, sitemaps, a breadth-first crawl of
 * the site within its page budget, the subresources and link targets the analyzers check, and the
 * side probes (llms.txt, security.txt, a not-found probe, CORS, http→https, TLS, DNS).
 *
 * Every request goes through the SSRF-safe outbound client (followRedirects / outboundRequest).
 * Failures of the crawl itself are AuditFailure codes; provider failures (TLS, DNS, the http://
 * probe) are recorded in the snapshot as `{ ok: false, error }` for the caller to judge.
 *
 * The parts live in this folder, each taking the crawl's context (context.ts): robots.ts,
 * sitemaps.ts, frontier.ts (discovered URLs and budget), page-crawl.ts (the breadth-first crawl),
 * link-checks.ts, probes.ts / provider-probes.ts, host-limits.ts and polite-fetch.ts (per-host
 * limits, Crawl-delay and back-off).
 */
import type { CrawlSnapshot } from '../analyzers/snapshot';
import { AuditFailure } from '../../workflows/contracts';
import { Aborter } from './abort';
import { createCrawlContext, type CrawlSiteInput } from './context';
import { Frontier, referredBy } from './frontier';
import { checkTargets } from './link-checks';
import { crawlBreadthFirst } from './page-crawl';
import { startSideProbes, type SideProbes } from './probes';
import { fetchOriginRobots, SiteRobots } from './robots';
import { collectSitemaps, mergeSitemapUrls } from './sitemaps';

export type { CrawlProgress, CrawlSiteInput } from './context';
export { retryAfterMs } from './host-limits';
export { CRAWL_LIMITS } from './limits';
export { extractLinks } from './page-links';
export { parseSitemapXml } from './sitemaps';

export async function crawlSite(input: CrawlSiteInput): Promise<CrawlSnapshot> {
  const aborter = new Aborter(input.signal);
  aborter.check();
  const context = createCrawlContext(input, aborter);
  const observedAt = new Date().toISOString();

  const { robots, rules } = await fetchOriginRobots(context);
  context.hostLimits.applyCrawlDelay(context.originUrl.host, rules.crawlDelaySeconds());
  if (!rules.isAllowed(context.homeUrl))
    throw new AuditFailure('robots_disallowed', `robots.txt disallows ${context.homeUrl} for our crawler`);
  const siteRobots = new SiteRobots(context, rules);

  // Sitemaps and side probes run in parallel with the crawl; the probes wait for the home page.
  const sitemapsPromise = collectSitemaps(context, siteRobots);
  sitemapsPromise.catch(() => undefined);
  let sideProbes: SideProbes | null = null;

  const frontier = new Frontier(Math.max(1, Math.floor(input.pageBudget)), {
    url: context.homeUrl,
    depth: 0,
    ...referredBy(null),
  });
  const startSideProbesOnce = () => void (sideProbes ??= startSideProbes(context));
  await crawlBreadthFirst(context, frontier, siteRobots, [frontier.home], startSideProbesOnce);

  // Sitemap entries no page linked to are crawled next, while the budget lasts (orphans).
  const sitemaps = await context.aborter.race(sitemapsPromise);
  const onlyInSitemaps = await mergeSitemapUrls(context, frontier, siteRobots, sitemaps);
  await crawlBreadthFirst(context, frontier, siteRobots, onlyInSitemaps, startSideProbesOnce);
  const { resources, linkChecks, stylesheets } = await checkTargets(context, frontier);
  const [llmsTxt, securityTxt, notFoundProbe, corsProbe, httpsRedirect, tls, dns] = await context.aborter.race(
    sideProbes ?? startSideProbes(context),
  );

  return {
    origin: context.origin,
    robots,
    pages: frontier.pages,
    pagesDiscovered: frontier.pagesDiscovered,
    budgetExhausted: frontier.budgetExhausted,
    resources,
    ...(httpsRedirect ? { httpsRedirect } : {}),
    ...(tls ? { tls } : {}),
    ...(dns ? { dns } : {}),
    observedAt,
    securityTxt,
    corsProbe,
    robotsDisallowed: [...frontier.disallowed.values()],
    ...(frontier.indexAliases.size > 0 ? { indexAliases: [...frontier.indexAliases.values()] } : {}),
    sitemaps,
    linkChecks,
    ...(stylesheets.length > 0 ? { stylesheets } : {}),
    llmsTxt,
    notFoundProbe,
  };
}
