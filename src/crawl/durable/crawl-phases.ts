import type { Db } from '../../db/knex';
import { Aborter } from '../abort';
import { createCrawlContext, isSameSite } from '../context';
import { startSideProbes } from '../probes';
import { fetchOriginRobots } from '../robots';
import { collectSitemaps, sitemapPageUrls } from '../sitemaps';
import { AuditFailure } from '../../../workflows/contracts';
import { indexAliasKey } from '../url-kinds';
import { createCrawlRun, loadCrawlRun, loadCrawlSitemaps, saveProbes, saveSitemaps, type CrawlRun } from './run-store';
import { pagesByAliasKey } from './frontier-commit';
import { databaseWait, stepContext, stepWindow, type StepEnvironment } from './step-context';

/** The crawl's first step: robots.txt of the origin, then the crawl with its home page queued. */
export async function beginCrawl(
  db: Db,
  input: { crawlId: string; auditId: string; origin: string; pageBudget: number },
  env: StepEnvironment,
): Promise<{ window: number }> {
  const wait = databaseWait(env);
  let run = await wait(() => loadCrawlRun(db, input.crawlId));
  if (!run) {
    const observedAt = new Date();
    const context = createCrawlContext(
      {
        origin: input.origin,
        pageBudget: input.pageBudget,
        allow: env.allow,
        userAgent: env.userAgent,
        ...lookupOf(env),
      },
      new Aborter(env.signal),
    );
    const { robots, rules } = await fetchOriginRobots(context);
    if (!rules.isAllowed(context.homeUrl))
      throw new AuditFailure('robots_disallowed', `robots.txt disallows ${context.homeUrl} for our crawler`);
    const created = { ...input, robots, observedAt };
    await wait(() => createCrawlRun(db, created, context.homeUrl, indexAliasKey(context.homeUrl)));
    run = (await wait(() => loadCrawlRun(db, input.crawlId)))!;
  }
  return { window: stepWindow(run, env.concurrencyPerHost) };
}

function lookupOf(env: StepEnvironment) {
  return env.lookup ? { lookup: env.lookup } : {};
}

async function existingRun(db: Db, crawlId: string, env: StepEnvironment): Promise<CrawlRun> {
  const run = await databaseWait(env)(() => loadCrawlRun(db, crawlId));
  if (!run) throw new Error(`crawl ${crawlId} does not exist`);
  return run;
}

/** The sitemaps robots.txt names, /sitemap.xml and the files their indexes list, stored for the analysis. */
export async function collectCrawlSitemaps(db: Db, crawlId: string, env: StepEnvironment): Promise<void> {
  const run = await existingRun(db, crawlId, env);
  if (run.sitemapsCollected) return;
  const { context, robots } = stepContext(run, env);
  const sitemaps = await collectSitemaps(context, robots);
  await databaseWait(env)(() => saveSitemaps(db, crawlId, sitemaps));
}

/** llms.txt, security.txt, the not-found, CORS and http:// probes, TLS and DNS: stored for the analysis. */
export async function probeCrawlSite(db: Db, crawlId: string, env: StepEnvironment): Promise<void> {
  const run = await existingRun(db, crawlId, env);
  if (run.probes) return;
  const { context } = stepContext(run, env);
  const [llmsTxt, securityTxt, notFoundProbe, corsProbe, httpsRedirect, tls, dns] = await context.aborter.race(
    startSideProbes(context),
  );
  const probes = {
    llmsTxt,
    securityTxt,
    notFoundProbe,
    corsProbe,
    ...(httpsRedirect ? { httpsRedirect } : {}),
    ...(tls ? { tls } : {}),
    ...(dns ? { dns } : {}),
  };
  await databaseWait(env)(() => saveProbes(db, crawlId, probes));
}

/**
 * After the linked pages: disallowed URLs a sitemap lists are flagged so, and the sitemap entries no
 * crawled page linked to are queued (no depth), to be crawled while the budget lasts.
 */
export async function admitSitemapUrls(db: Db, crawlId: string, env: StepEnvironment): Promise<number> {
  const run = await existingRun(db, crawlId, env);
  const { context, robots } = stepContext(run, env);
  const sitemaps = await databaseWait(env)(() => loadCrawlSitemaps(db, crawlId));
  const listed = [...sitemapPageUrls(context, sitemaps)].filter((url) => isSameSite(context, url));
  let admitted = 0;
  for (let from = 0; from < listed.length; from += 5_000) {
    const chunk = listed.slice(from, from + 5_000);
    await db('crawl_frontier')
      .where({ crawl_id: crawlId, state: 'disallowed' })
      .whereRaw('url = ANY(?::text[])', [chunk])
      .update({ in_sitemap: true });
    const known = new Set(
      (
        (await db('crawl_frontier')
          .where({ crawl_id: crawlId })
          .whereRaw('url = ANY(?::text[])', [chunk])
          .select('url')) as { url: string }[]
      ).map((row) => row.url),
    );
    const fresh = chunk.filter((u) => !known.has(u));
    const pageOfKey = await pagesByAliasKey(db, crawlId, fresh);
    const rows = [];
    for (const url of fresh) {
      const key = indexAliasKey(url);
      // The `/index.html` alias of a known page is an alias, not a page to crawl again.
      const aliasOf = pageOfKey.get(key);
      if (aliasOf !== undefined && aliasOf !== url) {
        rows.push({
          crawl_id: crawlId,
          url,
          state: 'alias',
          depth: null,
          in_sitemap: false,
          alias_key: key,
          alias_of: aliasOf,
        });
        continue;
      }
      const allowed = await robots.isAllowed(url);
      // A later entry of the chunk that is this one's alias is then an alias of it.
      if (allowed && !pageOfKey.has(key)) pageOfKey.set(key, url);
      rows.push({
        crawl_id: crawlId,
        url,
        state: allowed ? 'queued' : 'disallowed',
        depth: allowed ? null : 1,
        in_sitemap: !allowed,
        alias_key: key,
        alias_of: null,
      });
    }
    for (let at = 0; at < rows.length; at += 1_000) {
      const inserted = await db('crawl_frontier')
        .insert(rows.slice(at, at + 1_000))
        .onConflict(['crawl_id', 'url'])
        .ignore()
        .returning('url');
      admitted += inserted.length;
    }
  }
  if (admitted > 0) await db('crawl_runs').where({ crawl_id: crawlId }).increment('pages_discovered', admitted);
  return admitted;
}

/**
 * The pages are done: same-site URLs not crawled (certainly not documents, or past the budget) join
 * the targets to link-check.
 */
export async function closeFrontier(db: Db, crawlId: string): Promise<void> {
  await db.raw(
    `INSERT INTO crawl_targets (crawl_id, url, kind, external, found_on, linked_from)
     SELECT crawl_id, url, 'link', false, found_on, linked_from FROM crawl_frontier
      WHERE crawl_id = :crawlId AND state IN ('target', 'over_budget')
      ORDER BY seq
     ON CONFLICT (crawl_id, url) DO NOTHING`,
    { crawlId },
  );
}
