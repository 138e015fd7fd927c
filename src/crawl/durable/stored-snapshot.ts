import type {
  CrawlSnapshot,
  DisallowedUrl,
  IndexAlias,
  LinkCheck,
  SiteStylesheet,
  SnapshotPage,
  SnapshotResource,
} from '../../analyzers/snapshot';
import type { Db } from '../../db/knex';
import { CRAWL_LIMITS } from '../limits';
import type { TargetCheck } from './check-step';
import { keysetRows, type Wait } from './keyset-read';
import { loadCrawlRun, loadCrawlSitemaps } from './run-store';
import { StringPool } from './string-pool';

/** Rows read per query when a crawl's pages are read back (keyset on seq). */
const READ_CHUNK = 1_000;

export interface StoredCrawl {
  /** The snapshot the analyzers finish on: every page's metadata, no page bodies. */
  snapshot: CrawlSnapshot;
  startedAt: Date;
}

/** A crawl's facts read back as the snapshot the analyzers know; page bodies are streamed apart (storedPageBodies). */
export async function loadStoredSnapshot(db: Db, crawlId: string): Promise<StoredCrawl> {
  const run = await loadCrawlRun(db, crawlId);
  if (!run) throw new Error(`crawl ${crawlId} does not exist`);
  // Shared by every row read below: referrer lists name the same pages' URLs over and over.
  const pool = new StringPool();
  const pages = await storedPages(db, crawlId, pool);
  const targets = await checkedTargets(db, crawlId, pool);
  const frontierRows = (state: string, limit?: number) => {
    const query = db('crawl_frontier').where({ crawl_id: crawlId, state }).orderBy('seq');
    return (limit ? query.limit(limit) : query).select(
      'url',
      'depth',
      'found_on',
      'linked_from',
      'in_sitemap',
      'alias_of',
    );
  };
  const disallowed = (await frontierRows('disallowed', CRAWL_LIMITS.maxDisallowedRecorded)).map(
    (row: FrontierRow): DisallowedUrl => ({
      url: row.url,
      depth: row.depth,
      ...(row.in_sitemap ? { inSitemap: true } : {}),
      foundOn: pool.internAll(row.found_on),
      linkedFrom: row.linked_from,
    }),
  );
  const aliases = (await frontierRows('alias')).map((row: FrontierRow): IndexAlias => ({
    url: row.url,
    aliasOf: row.alias_of!,
    foundOn: pool.internAll(row.found_on),
    linkedFrom: row.linked_from,
  }));
  const unreachable = (await frontierRows('unreachable')).map((row: FrontierRow): LinkCheck => ({
    url: row.url,
    status: null,
    foundOn: pool.internAll(row.found_on),
    linkedFrom: row.linked_from,
    kind: 'page',
  }));
  const snapshot: CrawlSnapshot = {
    origin: run.origin,
    robots: run.robots,
    pages,
    pagesDiscovered: run.pagesDiscovered,
    budgetExhausted: run.budgetExhausted,
    resources: targets.resources,
    observedAt: run.observedAt.toISOString(),
    robotsDisallowed: disallowed,
    ...(aliases.length > 0 ? { indexAliases: aliases } : {}),
    sitemaps: await loadCrawlSitemaps(db, crawlId),
    linkChecks: [...targets.linkChecks, ...unreachable],
    ...(targets.stylesheets.length > 0 ? { stylesheets: targets.stylesheets } : {}),
    ...(run.probes ?? {}),
  };
  return { snapshot, startedAt: run.observedAt };
}

interface FrontierRow {
  url: string;
  depth: number | null;
  found_on: string[];
  linked_from: number;
  in_sitemap: boolean;
  alias_of: string | null;
}

/** Every crawled page in crawl order, its referrers as the whole crawl found them. */
async function storedPages(db: Db, crawlId: string, pool: StringPool): Promise<SnapshotPage[]> {
  const pages: SnapshotPage[] = [];
  for await (const row of storedPageRows(db, crawlId)) pages.push(storedPage(row, pool));
  return pages;
}

/** Where a range of the crawl's pages begins: after the `seq` of this one, or from the first page. */
export type PagesFrom = { after?: number; take?: number };

/**
 * Where the pages from the `index`th (from 0, in crawl order) begin: one look-up in the primary key's
 * index, not an OFFSET over the joined rows (which costs as much as the pages before it).
 */
export async function pagesFrom(db: Db, crawlId: string, index: number, take: number, wait?: Wait): Promise<PagesFrom> {
  if (index === 0) return { take };
  const read = () =>
    db('crawl_pages')
      .where('crawl_id', crawlId)
      .orderBy('seq')
      .offset(index - 1)
      .first('seq') as Promise<{ seq: string } | undefined>;
  const row = await (wait ? wait(read) : read());
  // Past the last page: nothing to read.
  return row ? { after: Number(row.seq), take } : { take: 0 };
}

/**
 * A crawl's pages rows with their frontier rows' referrers, in crawl order: all of them, or a range
 * of them (a part, pagesFrom), `body` included when asked.
 */
export function storedPageRows(
  db: Db,
  crawlId: string,
  options: { body?: boolean; wait?: Wait } & PagesFrom = {},
): AsyncGenerator<StoredPageRow & { seq: string; body?: string | null }> {
  return keysetRows({
    from: () =>
      db('crawl_pages as p')
        .leftJoin('crawl_frontier as f', function () {
          this.on('f.crawl_id', 'p.crawl_id').andOn('f.url', 'p.url');
        })
        .where('p.crawl_id', crawlId),
    seq: 'p.seq',
    columns: ['p.page', 'p.rendered', 'f.found_on', 'f.linked_from', ...(options.body ? ['p.body'] : [])],
    chunk: options.body ? READ_CHUNK / 4 : READ_CHUNK,
    ...options,
  });
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A crawl_pages row (with its frontier row's referrers) as the body-less page the analysis keeps. */
export interface StoredPageRow {
  page: string;
  rendered: string | null;
  found_on: string[] | null;
  linked_from: number | null;
}

export function storedPage(row: StoredPageRow, pool: StringPool): SnapshotPage {
  const metadata = pool.parse<Mutable<Omit<SnapshotPage, 'body'>>>(row.page);
  // Kept through the whole analysis: equal header maps and empty redirect chains are one instance each.
  metadata.headers = pool.headers(metadata.headers);
  metadata.redirectChain = pool.list(metadata.redirectChain);
  const page: SnapshotPage = {
    ...metadata,
    body: null,
    // What rendering it in the browser showed (SEO_CONTENT_NEEDS_JS).
    ...(row.rendered !== null ? { rendered: pool.parse<SnapshotPage['rendered']>(row.rendered) } : {}),
  };
  return page.depth !== 0 && row.found_on !== null
    ? { ...page, foundOn: keptReferrers(page, row.found_on, pool), linkedFrom: row.linked_from ?? 0 }
    : page;
}

/**
 * The referrers a page keeps through the analysis: all of them where a finding lists them (a page
 * answering other than 2xx is a broken or redirecting link target: SEO_BROKEN_LINK,
 * SEO_INTERNAL_REDIRECT_LINK), else the first, the parent on a click path (SEO_DEEP_PAGE,
 * SEO_FEW_INLINKS); linkedFrom keeps the exact count (docs/architecture.md, "Durable crawl", Memory).
 */
function keptReferrers(page: SnapshotPage, foundOn: readonly string[], pool: StringPool): readonly string[] {
  const listed = page.status < 200 || page.status > 299 || page.redirectChain.length > 0;
  return pool.internAll(listed ? foundOn : foundOn.slice(0, 1));
}

/**
 * Each crawled page's body, in the order of the snapshot's pages, a chunk at a time (each read
 * through `wait`): all of them, or a range of them (pagesFrom).
 */
export async function* storedPageBodies(
  db: Db,
  crawlId: string,
  wait?: Wait,
  range: PagesFrom = {},
): AsyncGenerator<string | null> {
  const rows = keysetRows<{ seq: string; body: string | null }>({
    from: () => db('crawl_pages').where('crawl_id', crawlId),
    columns: ['body'],
    chunk: READ_CHUNK / 4,
    ...(wait ? { wait } : {}),
    ...range,
  });
  for await (const row of rows) yield row.body;
}

/** The site's stylesheets the checks fetched, in the order the snapshot lists them (parsePage's cascade). */
export async function storedStylesheets(db: Db, crawlId: string, wait?: Wait): Promise<SiteStylesheet[]> {
  const sheets: SiteStylesheet[] = [];
  const rows = keysetRows<{ seq: string; checked: string }>({
    from: () => db('crawl_targets').where({ crawl_id: crawlId, resource_kind: 'stylesheet' }).whereNotNull('checked'),
    columns: ['checked'],
    chunk: READ_CHUNK / 4,
    ...(wait ? { wait } : {}),
  });
  for await (const row of rows) {
    const check = JSON.parse(row.checked) as TargetCheck;
    if (!('status' in check)) sheets.push(...(check.stylesheets ?? []));
  }
  return sheets;
}

interface CheckedTargets {
  resources: SnapshotResource[];
  linkChecks: LinkCheck[];
  stylesheets: SiteStylesheet[];
}

async function checkedTargets(db: Db, crawlId: string, pool: StringPool): Promise<CheckedTargets> {
  const out: CheckedTargets = { resources: [], linkChecks: [], stylesheets: [] };
  const links: LinkCheck[] = [];
  const rows = keysetRows<{ seq: string; url: string; found_on: string[]; linked_from: number; checked: string }>({
    from: () => db('crawl_targets').where('crawl_id', crawlId).whereNotNull('checked'),
    columns: ['url', 'found_on', 'linked_from', 'checked'],
    chunk: READ_CHUNK,
  });
  for await (const row of rows) {
    const check = pool.parse<TargetCheck>(row.checked);
    if ('status' in check) {
      links.push({
        url: pool.intern(row.url),
        status: check.status,
        foundOn: pool.internAll(row.found_on),
        linkedFrom: row.linked_from,
        kind: 'page',
      });
      continue;
    }
    for (const resource of check.resources ?? []) out.resources.push(resource);
    for (const linkCheck of check.linkChecks ?? []) out.linkChecks.push(linkCheck);
    for (const stylesheet of check.stylesheets ?? []) out.stylesheets.push(stylesheet);
  }
  for (const link of links) out.linkChecks.push(link);
  return out;
}
