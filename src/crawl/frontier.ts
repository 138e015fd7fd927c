import type { DisallowedUrl, IndexAlias, LinkCheck, SnapshotPage, SnapshotResource } from '../analyzers/snapshot';
import { isSameSite, type CrawlContext } from './context';
import { CRAWL_LIMITS } from './limits';
import type { PageLinks } from './page-links';
import type { SiteRobots } from './robots';

/** Linked URLs that are certainly not HTML documents: link-checked instead of crawled. */
const NON_DOCUMENT_EXT =
  /\.(?:pdf|zip|gz|tgz|rar|7z|tar|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4a|m4v|mov|avi|webm|ogg|wav|flac|woff2?|ttf|otf|eot|css|js|mjs|json|xml|rss|atom|txt|csv|docx?|xlsx?|pptx?|exe|dmg|apk|iso)$/i;

/** The pages that link to a URL: the first foundOnCap of them, and how many there are in all. */
export interface Referrers {
  foundOn: string[];
  linkedFrom: number;
}

/** A URL of the site found by the crawl: how deep, and on which pages. */
export interface Discovered extends Referrers {
  url: string;
  depth: number;
}

type DisallowedRecord = DisallowedUrl & Referrers;

/** First seen on `pageUrl` (or, with null, found elsewhere, e.g. in a sitemap). */
export function referredBy(pageUrl: string | null): Referrers {
  return pageUrl === null ? { foundOn: [], linkedFrom: 0 } : { foundOn: [pageUrl], linkedFrom: 1 };
}

/** `/dir/index.html` and `/dir/` are one page on static hosts: both map to the directory URL. */
function indexAliasKey(url: string): string {
  return url.replace(/^([^?#]*\/)index\.html?(?=$|[?#])/i, '$1');
}

/** Each page's links and resources are distinct (page-crawl.ts), so every call is a new referrer. */
function addFoundOn(record: Referrers, pageUrl: string): void {
  if (record.foundOn.includes(pageUrl)) return;
  record.linkedFrom++;
  if (record.foundOn.length < CRAWL_LIMITS.foundOnCap) record.foundOn.push(pageUrl);
}

/**
 * The crawl's state: pages crawled, URLs discovered (deduplicated across crawled, disallowed and
 * not-crawled targets), the subresources to check, and the page requests that kept answering 429.
 */
export class Frontier {
  private readonly crawled: { page: SnapshotPage; discovery: Discovered }[] = [];
  /** Requested and redirect-target URLs: not discovered again. */
  readonly seen: Set<string>;
  readonly disallowed = new Map<string, DisallowedRecord>();
  /** Internal link targets not crawled (depth, type or page budget): link-checked later. */
  readonly uncrawled = new Map<string, Referrers>();
  readonly resourceRefs = new Map<string, { kind: SnapshotResource['kind'] } & Referrers>();
  /** Pages found but unreachable: reported as link checks with no status. */
  readonly unreachablePages: LinkCheck[] = [];
  /** Second URLs of discovered pages (`/index.html` aliases), not crawled again. */
  readonly indexAliases = new Map<string, IndexAlias & Referrers>();
  /** url → discovery record, for foundOn updates. */
  private readonly discovered = new Map<string, Discovered>();
  /** indexAliasKey → the first discovered URL with that key. */
  private readonly byAliasKey = new Map<string, string>();
  pageRequests = 0;
  rateLimitedPages = 0;

  constructor(
    readonly budget: number,
    readonly home: Discovered,
  ) {
    this.seen = new Set([home.url]);
    this.discovered.set(home.url, home);
    this.byAliasKey.set(indexAliasKey(home.url), home.url);
  }

  addPage(page: SnapshotPage, discovery: Discovered): void {
    this.crawled.push({ page, discovery });
  }

  /**
   * The crawled pages, each with its referrers as of the end of the crawl: pages crawled after it
   * may still have linked to it, so "linked from N pages" is read from the discovery record now.
   */
  get pages(): SnapshotPage[] {
    return this.crawled.map(({ page, discovery }) =>
      discovery.depth > 0 ? { ...page, foundOn: discovery.foundOn, linkedFrom: discovery.linkedFrom } : page,
    );
  }

  get pageCount(): number {
    return this.crawled.length;
  }

  /** Most page requests kept answering 429 (once at least `minRequests` were made). */
  mostlyRateLimited(minRequests: number): boolean {
    return this.pageRequests >= minRequests && this.rateLimitedPages * 2 > this.pageRequests;
  }

  rateLimitMessage(): string {
    return `${this.rateLimitedPages} of ${this.pageRequests} page requests kept answering 429 Too Many Requests`;
  }

  recordUnreachablePage(page: Discovered): void {
    this.unreachablePages.push({
      url: page.url,
      status: null,
      foundOn: page.foundOn,
      linkedFrom: page.linkedFrom,
      kind: 'page',
    });
  }

  recordUncrawled(pages: readonly Discovered[]): void {
    for (const page of pages) this.uncrawled.set(page.url, { foundOn: page.foundOn, linkedFrom: page.linkedFrom });
  }

  recordDisallowed(url: string, depth: number, referrers: Referrers, inSitemap?: true): void {
    if (this.disallowed.size >= CRAWL_LIMITS.maxDisallowedRecorded) return;
    this.disallowed.set(url, { url, depth, ...referrers, ...(inSitemap ? { inSitemap } : {}) });
  }

  flagDisallowedInSitemap(sitemapUrls: ReadonlySet<string>): void {
    for (const record of this.disallowed.values())
      if (sitemapUrls.has(record.url)) (record as { inSitemap?: boolean }).inSitemap = true;
  }

  /** Requested and final URLs of every crawled page. */
  crawledUrls(): Set<string> {
    const urls = new Set<string>();
    for (const { page } of this.crawled) {
      urls.add(page.url);
      urls.add(page.finalUrl);
    }
    return urls;
  }

  /** Subresources of a crawled page, first come first kept (at most 4 × maxResources distinct). */
  recordResources(pageUrl: string, resources: PageLinks['resources']): void {
    const distinct = new Map(resources.map((resource) => [resource.url, resource]));
    for (const resource of distinct.values()) {
      const known = this.resourceRefs.get(resource.url);
      if (known) addFoundOn(known, pageUrl);
      else if (this.resourceRefs.size < CRAWL_LIMITS.maxResources * 4)
        this.resourceRefs.set(resource.url, { kind: resource.kind, ...referredBy(pageUrl) });
    }
  }

  /**
   * A link of the site found on `pageUrl` at `depth`: a known URL gains a foundOn; a new one is
   * returned to crawl, or recorded as disallowed or as a target to check (too deep, not a document).
   */
  async discover(
    context: CrawlContext,
    robots: SiteRobots,
    link: string,
    pageUrl: string,
    depth: number,
  ): Promise<Discovered | null> {
    if (!isSameSite(context, link)) return null;
    const known = this.discovered.get(link);
    if (known) {
      if (known.url !== pageUrl) addFoundOn(known, pageUrl);
      return null;
    }
    const knownElsewhere = this.disallowed.get(link) ?? this.uncrawled.get(link);
    if (knownElsewhere) {
      addFoundOn(knownElsewhere, pageUrl);
      return null;
    }
    if (this.seen.has(link)) return null; // a redirect target already crawled
    const aliasOf = this.byAliasKey.get(indexAliasKey(link));
    if (aliasOf !== undefined) {
      const alias = this.indexAliases.get(link) ?? { url: link, aliasOf, ...referredBy(null) };
      addFoundOn(alias, pageUrl);
      this.indexAliases.set(link, alias);
      return null;
    }
    if (!(await robots.isAllowed(link))) {
      this.recordDisallowed(link, depth, referredBy(pageUrl));
      return null;
    }
    if (depth > CRAWL_LIMITS.maxDepth || NON_DOCUMENT_EXT.test(new URL(link).pathname)) {
      this.uncrawled.set(link, referredBy(pageUrl));
      return null;
    }
    const found: Discovered = { url: link, depth, ...referredBy(pageUrl) };
    this.discovered.set(link, found);
    this.byAliasKey.set(indexAliasKey(link), link);
    this.seen.add(link);
    return found;
  }
}
