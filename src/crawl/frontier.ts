import type { DisallowedUrl, IndexAlias, LinkCheck, SnapshotPage, SnapshotResource } from '../analyzers/snapshot';
import { isSameSite, type CrawlContext } from './context';
import { CRAWL_LIMITS } from './limits';
import type { PageLinks } from './page-links';
import type { SiteRobots } from './robots';
import { indexAliasKey, isNonDocumentUrl } from './url-kinds';

/** The pages that link to a URL: the first foundOnCap of them, and how many there are in all. */
export interface Referrers {
  foundOn: string[];
  linkedFrom: number;
}

/** A URL of the site found by the crawl: how deep (null: reached only from a sitemap), and on which pages. */
export interface Discovered extends Referrers {
  url: string;
  depth: number | null;
}

type DisallowedRecord = DisallowedUrl & Referrers;

/** First seen on `pageUrl` (or, with null, found elsewhere, e.g. in a sitemap). */
export function referredBy(pageUrl: string | null): Referrers {
  return pageUrl === null ? { foundOn: [], linkedFrom: 0 } : { foundOn: [pageUrl], linkedFrom: 1 };
}

/** Each page's links and resources are distinct (page-crawl.ts), so every call is a new referrer. */
function addFoundOn(record: Referrers, pageUrl: string): void {
  if (record.foundOn.includes(pageUrl)) return;
  record.linkedFrom++;
  if (record.foundOn.length < CRAWL_LIMITS.foundOnCap) record.foundOn.push(pageUrl);
}

/**
 * The crawl's state: pages crawled, URLs discovered (deduplicated across crawled, disallowed and
 * not-crawled targets), the subresources and external links to check, and the page requests that
 * kept answering 429. The budget counts pages answering HTML: redirects and errors spend none.
 */
export class Frontier {
  private readonly crawled: { page: SnapshotPage; discovery: Discovered }[] = [];
  /** Distinct final URLs of crawled pages answering HTML: what the page budget counts. */
  htmlPages = 0;
  private readonly htmlFinalUrls = new Set<string>();
  /** Distinct same-site URLs seen, crawled or not (the audit's `pages_discovered`). */
  pagesDiscovered = 1;
  /** Crawlable URLs were left because the budget was spent. */
  budgetExhausted = false;
  /** Links to other sites, each checked once (up to the external check budget). */
  readonly externalLinks = new Map<string, Referrers>();
  /** Requested and redirect-target URLs, and disallowed ones past the record's cap: not discovered again. */
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

  /**
   * A redirect that ends on an HTML page spends the budget once for that page, however many lead
   * there. True when this is the first HTML answer from the page's final URL: only then are its links read.
   */
  addPage(page: SnapshotPage, discovery: Discovered, answeredHtml: boolean): boolean {
    this.crawled.push({ page, discovery });
    if (!answeredHtml || this.htmlFinalUrls.has(page.finalUrl)) return false;
    this.htmlFinalUrls.add(page.finalUrl);
    this.htmlPages++;
    return true;
  }

  get budgetLeft(): number {
    return Math.max(0, this.budget - this.htmlPages);
  }

  /**
   * The crawled pages, each with its referrers as of the end of the crawl: pages crawled after it
   * may still have linked to it, so "linked from N pages" is read from the discovery record now.
   */
  get pages(): SnapshotPage[] {
    return this.crawled.map(({ page, discovery }) =>
      discovery.depth !== 0 ? { ...page, foundOn: discovery.foundOn, linkedFrom: discovery.linkedFrom } : page,
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

  /** Crawlable URLs the page budget left: link-checked instead. */
  recordOverBudget(pages: readonly Discovered[]): void {
    if (pages.length > 0) this.budgetExhausted = true;
    for (const page of pages) this.uncrawled.set(page.url, { foundOn: page.foundOn, linkedFrom: page.linkedFrom });
  }

  /** A link to another site: checked once, its referrers counted, up to the external check budget. */
  recordExternalLink(url: string, pageUrl: string, budget: number): void {
    const known = this.externalLinks.get(url) ?? this.resourceRefs.get(url);
    if (known) addFoundOn(known, pageUrl);
    else if (this.externalLinks.size < budget) this.externalLinks.set(url, referredBy(pageUrl));
  }

  recordDisallowed(url: string, depth: number | null, referrers: Referrers, inSitemap?: true): void {
    // Past the record's cap the URL is still known, so pages_discovered counts it once.
    if (this.disallowed.size >= CRAWL_LIMITS.maxDisallowedRecorded) return void this.seen.add(url);
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

  /** Subresources of a crawled page: every distinct one is checked once. */
  recordResources(pageUrl: string, resources: PageLinks['resources']): void {
    const distinct = new Map(resources.map((resource) => [resource.url, resource]));
    for (const resource of distinct.values()) {
      const known = this.resourceRefs.get(resource.url);
      if (known) addFoundOn(known, pageUrl);
      else this.resourceRefs.set(resource.url, { kind: resource.kind, ...referredBy(pageUrl) });
    }
  }

  /**
   * A link found on `pageUrl` at `depth`: a known URL gains a foundOn; a new one of the site is
   * returned to crawl, or recorded as disallowed or as a target to check (not a document); another
   * site's is recorded for its check.
   */
  async discover(
    context: CrawlContext,
    robots: SiteRobots,
    link: string,
    pageUrl: string,
    depth: number | null,
  ): Promise<Discovered | null> {
    if (!isSameSite(context, link)) {
      this.recordExternalLink(link, pageUrl, context.input.externalCheckBudget ?? Number.POSITIVE_INFINITY);
      return null;
    }
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
      let alias = this.indexAliases.get(link);
      if (!alias) this.pagesDiscovered++;
      alias ??= { url: link, aliasOf, ...referredBy(null) };
      addFoundOn(alias, pageUrl);
      this.indexAliases.set(link, alias);
      return null;
    }
    this.pagesDiscovered++;
    if (!(await robots.isAllowed(link))) {
      this.recordDisallowed(link, depth, referredBy(pageUrl));
      return null;
    }
    if (isNonDocumentUrl(link)) {
      this.uncrawled.set(link, referredBy(pageUrl));
      return null;
    }
    return this.admit({ url: link, depth, ...referredBy(pageUrl) });
  }

  /**
   * A sitemap entry that is the `/index.html` alias of a discovered page (linked as such, or only
   * listed): an alias, not a page to crawl again. True when it is one.
   */
  recordSitemapAlias(url: string): boolean {
    const aliasOf = this.byAliasKey.get(indexAliasKey(url));
    if (aliasOf === undefined || aliasOf === url) return false;
    if (!this.indexAliases.has(url)) {
      this.pagesDiscovered++;
      this.indexAliases.set(url, { url, aliasOf, ...referredBy(null) });
    }
    return true;
  }

  /** A URL only a sitemap names: crawled after the linked pages, while the budget lasts. */
  admitFromSitemap(url: string): Discovered {
    this.pagesDiscovered++;
    return this.admit({ url, depth: null, ...referredBy(null) });
  }

  private admit(found: Discovered): Discovered {
    this.discovered.set(found.url, found);
    this.byAliasKey.set(indexAliasKey(found.url), found.url);
    this.seen.add(found.url);
    return found;
  }

  /** True when the URL is already known to the crawl (crawled, queued, checked or disallowed). */
  knows(url: string): boolean {
    return this.discovered.has(url) || this.seen.has(url) || this.uncrawled.has(url) || this.disallowed.has(url);
  }
}
