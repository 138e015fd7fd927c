import type { AnalyzerCode } from '../../analyzers/catalog';
import type { CrawledPage } from '../../schemas/audit';
import type { Rng } from './rng';
import type { Site, SitePage } from './site';

/**
 * The crawl summary of the listed pages, agreeing with the findings: a page an error finding cites
 * answers 404, one a slow-response finding cites is slow, one a missing-title finding cites has none.
 */
export function crawledPages(
  listed: readonly SitePage[],
  site: Site,
  affectedBy: ReadonlyMap<AnalyzerCode, ReadonlySet<string>>,
  rng: Rng,
): CrawledPage[] {
  return listed.map((p) => {
    const broken = affectedBy.get('SEO_HTTP_STATUS_ERROR')?.has(p.url) === true;
    const slow = affectedBy.get('PERF_TTFB_SLOW')?.has(p.url) === true;
    const untitled = affectedBy.get('SEO_TITLE_MISSING')?.has(p.url) === true;
    const jitter = rng.next();
    // Pages not reported slow stay under the 600 ms warning threshold, as the analyzer would require.
    const ttfb = slow
      ? Math.round(650 + jitter * 900)
      : Math.min(590, Math.round(site.baseTtfb * (0.7 + jitter * 0.6)));
    const bytes = broken ? 4_000 + rng.int(0, 8_000) : 18_000 + rng.int(0, 180_000);
    return {
      url: p.url,
      status_code: broken ? 404 : 200,
      depth: p.depth,
      ttfb_ms: ttfb,
      bytes,
      content_type: 'text/html; charset=utf-8',
      title: broken ? `Page not found | ${site.name}` : untitled ? '' : pageTitle(p.path, site.name),
    };
  });
}

/** A plausible crawl time: pages fetched 3 at a time at about the site's response time. */
export function crawlDurationMs(pagesCrawled: number, site: Site): number {
  return Math.round(800 + (pagesCrawled * (site.baseTtfb + 120)) / 3);
}

function pageTitle(path: string, name: string): string {
  if (path === '/') return `${name} | Home`;
  const last = path.split('/').filter(Boolean).pop() ?? '';
  const words = last
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
  return `${words} | ${name}`;
}
