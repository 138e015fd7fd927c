import type { AuditJson, CrawledPage } from '../../schemas/audit';
import type { CrawlFacts, FindingUrlFact, PageFact } from '../crawl-facts';

/**
 * The crawl facts of an audit derived from its JSON alone: the facts of a test-mode (synthetic)
 * audit, and of any audit whose run stored none of its own. Deterministic: the same JSON gives the
 * same rows. Pages are `crawl.pages` in their order; a page links to the home page and to every
 * listed page one click deeper, so the link counts follow from the depths. Each finding's URLs keep
 * their order in the JSON, with the depth and inlinks of the listed page of that URL (null for a URL
 * that is not a listed page, e.g. a resource or a DNS name).
 */
export function syntheticCrawlFacts(
  audit: AuditJson,
): CrawlFacts & { pages: PageFact[]; findingUrls: FindingUrlFact[] } {
  const listed = audit.crawl.pages;
  const noindex = new Set(
    audit.findings.filter((finding) => finding.analyzer === 'SEO_NOINDEX').flatMap((finding) => finding.urls),
  );
  const linking = listed.filter(isHtmlAnswer);
  const count = (pages: readonly CrawledPage[], depth: number) => pages.filter((page) => page.depth === depth).length;
  const pages = listed.map((page): PageFact => {
    const html = isHtmlAnswer(page);
    const indexable = html && !noindex.has(page.url);
    return {
      url: page.url,
      status: page.status_code,
      depth: page.depth,
      inlinks: inlinksOf(page, linking),
      outlinks: html && page.depth !== null ? count(listed, page.depth + 1) + (page.depth > 0 ? 1 : 0) : 0,
      title: page.title ?? null,
      content_type: page.content_type,
      bytes: page.bytes,
      response_ms: page.ttfb_ms,
      indexable,
      canonical: indexable ? page.url : null,
      redirect_to: null,
    };
  });
  const byUrl = new Map(pages.map((page) => [page.url, page]));
  const findingUrls = audit.findings.flatMap((finding) =>
    finding.urls.map((url, position): FindingUrlFact => {
      const page = byUrl.get(url);
      return {
        finding_id: finding.id,
        position,
        url,
        depth: page?.depth ?? null,
        referrers: page ? page.inlinks : null,
      };
    }),
  );
  return { pages, findingUrls };
}

/** A 2xx HTML answer: the pages whose links count. */
function isHtmlAnswer(page: CrawledPage): boolean {
  return page.status_code >= 200 && page.status_code < 300 && /^text\/html\b/i.test(page.content_type ?? '');
}

/** The home page is linked from every deeper linking page; a page at depth d from those at d − 1. */
function inlinksOf(page: CrawledPage, linking: readonly CrawledPage[]): number {
  const depth = page.depth;
  if (depth === null) return 0;
  return linking.filter((other) => (depth === 0 ? (other.depth ?? 0) > 0 : other.depth === depth - 1)).length;
}
