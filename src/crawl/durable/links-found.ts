import { isSameSite, type CrawlContext } from '../context';
import type { PageLinks } from '../page-links';
import type { SiteRobots } from '../robots';
import { isNonDocumentUrl } from '../url-kinds';
import type { LinkFound, TargetFound } from './frontier-commit';

/** What one page links to and loads, as the crawl found it (its response, or its rendered DOM). */
export interface PageFinds {
  /** The page's URL as it answered: the referrer its links record. */
  pageUrl: string;
  /** The page's depth (null: reached only from a sitemap); its links are one deeper. */
  depth: number | null;
  links: readonly string[];
  resources?: PageLinks['resources'];
}

/**
 * What pages link to and load, each target with the distinct pages that reference it: same-site URLs
 * to crawl (or disallowed, or link-checked when certainly not a document), and subresources and
 * other sites' links to check. The page step and the rendering of a page commit through it alike.
 */
export async function linksFound(
  context: CrawlContext,
  robots: SiteRobots,
  pages: readonly PageFinds[],
): Promise<{ links: LinkFound[]; targets: TargetFound[] }> {
  const links = new Map<string, LinkFound>();
  const targets = new Map<string, TargetFound>();
  const addTarget = (
    url: string,
    pageUrl: string,
    kind: TargetFound['kind'],
    resourceKind?: TargetFound['resourceKind'],
  ) => {
    const known = targets.get(url);
    if (known) return void known.referrers.push(pageUrl);
    const external = !isSameSite(context, url);
    targets.set(url, { url, kind, external, referrers: [pageUrl], ...(resourceKind ? { resourceKind } : {}) });
  };
  const read = new Set<string>();
  for (const { pageUrl, depth, links: pageLinks, resources: pageResources } of pages) {
    // A page claimed twice (directly and through a redirect to it) refers to its targets once.
    if (read.has(pageUrl)) continue;
    read.add(pageUrl);
    const linkDepth = depth === null ? null : depth + 1;
    const resources = new Map((pageResources ?? []).map((resource) => [resource.url, resource]));
    for (const resource of resources.values()) addTarget(resource.url, pageUrl, 'resource', resource.kind);
    for (const link of new Set(pageLinks)) {
      if (!isSameSite(context, link)) addTarget(link, pageUrl, 'link');
      else if (link !== pageUrl) addLink(links, link, pageUrl, linkDepth);
    }
  }
  for (const link of links.values()) {
    if (!(await robots.isAllowed(link.url))) link.state = 'disallowed';
    else if (isNonDocumentUrl(link.url)) link.state = 'target';
  }
  return { links: [...links.values()], targets: [...targets.values()] };
}

function addLink(links: Map<string, LinkFound>, url: string, pageUrl: string, depth: number | null): void {
  const known = links.get(url);
  if (!known) return void links.set(url, { url, depth, referrers: [pageUrl], state: 'queued' });
  if (!known.referrers.includes(pageUrl)) known.referrers.push(pageUrl);
  if (depth !== null && (known.depth === null || depth < known.depth)) known.depth = depth;
}
