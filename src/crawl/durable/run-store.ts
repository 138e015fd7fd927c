import type { CrawlSnapshot, RobotsFetch, SitemapFetch } from '../../analyzers/snapshot';
import type { Db } from '../../db/knex';

/** What the side probes found, stored as the snapshot names them. */
export type ProbeFacts = Pick<
  CrawlSnapshot,
  'llmsTxt' | 'securityTxt' | 'notFoundProbe' | 'corsProbe' | 'httpsRedirect' | 'tls' | 'dns'
>;

/** One attempt's crawl as stored: where it crawls, its budget, and what it has counted so far. */
export interface CrawlRun {
  crawlId: string;
  auditId: string;
  origin: string;
  pageBudget: number;
  htmlPages: number;
  pagesCrawled: number;
  pagesDiscovered: number;
  budgetExhausted: boolean;
  pageRequests: number;
  rateLimitedPages: number;
  externalTargets: number;
  robots: RobotsFetch;
  /** The sitemaps were collected; their list is read apart, where it is used (loadCrawlSitemaps). */
  sitemapsCollected: boolean;
  probes: ProbeFacts | null;
  observedAt: Date;
}

interface CrawlRunRow {
  crawl_id: string;
  audit_id: string;
  origin: string;
  page_budget: number;
  html_pages: number;
  pages_crawled: number;
  pages_discovered: number;
  budget_exhausted: boolean;
  page_requests: number;
  rate_limited_pages: number;
  external_targets: number;
  robots: string;
  sitemaps_collected: boolean;
  probes: string | null;
  observed_at: Date;
}

function crawlRunOf(row: CrawlRunRow): CrawlRun {
  return {
    crawlId: row.crawl_id,
    auditId: row.audit_id,
    origin: row.origin,
    pageBudget: row.page_budget,
    htmlPages: row.html_pages,
    pagesCrawled: row.pages_crawled,
    pagesDiscovered: row.pages_discovered,
    budgetExhausted: row.budget_exhausted,
    pageRequests: row.page_requests,
    rateLimitedPages: row.rate_limited_pages,
    externalTargets: row.external_targets,
    robots: JSON.parse(row.robots) as RobotsFetch,
    sitemapsCollected: row.sitemaps_collected,
    probes: row.probes === null ? null : (JSON.parse(row.probes) as ProbeFacts),
    observedAt: new Date(row.observed_at),
  };
}

/**
 * Creates the crawl and queues its home page, once: a retried begin finds it made. The robots.txt
 * fetched by an earlier try stands (its rules are the crawl's from the start).
 */
export async function createCrawlRun(
  db: Db,
  run: { crawlId: string; auditId: string; origin: string; pageBudget: number; robots: RobotsFetch; observedAt: Date },
  homeUrl: string,
  aliasKey: string,
): Promise<void> {
  await db.transaction(async (trx) => {
    const inserted = await trx('crawl_runs')
      .insert({
        crawl_id: run.crawlId,
        audit_id: run.auditId,
        origin: run.origin,
        page_budget: run.pageBudget,
        robots: JSON.stringify(run.robots),
        observed_at: run.observedAt,
      })
      .onConflict('crawl_id')
      .ignore()
      .returning('crawl_id');
    if (inserted.length === 0) return;
    await trx('crawl_frontier').insert({
      crawl_id: run.crawlId,
      url: homeUrl,
      state: 'queued',
      depth: 0,
      alias_key: aliasKey,
    });
  });
}

/**
 * The crawl as every step needs it, without its sitemaps: they list up to 50,000 URLs a file, and
 * reading them back in each step cost a 100,000-page crawl a fifth of its CPU time.
 */
export async function loadCrawlRun(db: Db, crawlId: string): Promise<CrawlRun | null> {
  const row = (await db('crawl_runs')
    .where({ crawl_id: crawlId })
    .first(
      'crawl_id',
      'audit_id',
      'origin',
      'page_budget',
      'html_pages',
      'pages_crawled',
      'pages_discovered',
      'budget_exhausted',
      'page_requests',
      'rate_limited_pages',
      'external_targets',
      'robots',
      'probes',
      'observed_at',
      db.raw('sitemaps IS NOT NULL AS sitemaps_collected'),
    )) as CrawlRunRow | undefined;
  return row ? crawlRunOf(row) : null;
}

/** The crawl's sitemaps as collected (none yet: an empty list). */
export async function loadCrawlSitemaps(db: Db, crawlId: string): Promise<SitemapFetch[]> {
  const row = (await db('crawl_runs').where({ crawl_id: crawlId }).first('sitemaps')) as
    { sitemaps: string | null } | undefined;
  return row?.sitemaps ? (JSON.parse(row.sitemaps) as SitemapFetch[]) : [];
}

export async function saveSitemaps(db: Db, crawlId: string, sitemaps: readonly SitemapFetch[]): Promise<void> {
  await db('crawl_runs')
    .where({ crawl_id: crawlId })
    .update({ sitemaps: JSON.stringify(sitemaps) });
}

export async function saveProbes(db: Db, crawlId: string, probes: ProbeFacts): Promise<void> {
  await db('crawl_runs')
    .where({ crawl_id: crawlId })
    .update({ probes: JSON.stringify(probes) });
}

/** Drops a crawl's working state (its rows go with it): the audit has stored what it keeps. */
export async function dropCrawlRun(db: Db, crawlId: string): Promise<void> {
  await db('crawl_runs').where({ crawl_id: crawlId }).delete();
}

/** Crawls older than `before` whose attempt never finished (a terminated workflow): swept by retention. */
export async function dropCrawlRunsBefore(db: Db, before: Date): Promise<number> {
  return db('crawl_runs').where('created_at', '<', before).delete();
}

/** The result of a step that committed, so a retry after its commit returns it instead of redoing it. */
export async function committedStep<T>(db: Db, crawlId: string, step: string): Promise<T | null> {
  const row = (await db('crawl_steps').where({ crawl_id: crawlId, step }).first('result')) as
    { result: string } | undefined;
  return row ? (JSON.parse(row.result) as T) : null;
}
