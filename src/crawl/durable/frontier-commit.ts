import type { Knex } from 'knex';
import type { SnapshotPage, SnapshotResource } from '../../analyzers/snapshot';
import type { Db } from '../../db/knex';
import { CRAWL_LIMITS } from '../limits';
import { indexAliasKey } from '../url-kinds';

type Trx = Knex.Transaction;

/** A same-site URL the step's pages link to, with the distinct pages of this step that link to it. */
export interface LinkFound {
  url: string;
  depth: number | null;
  referrers: string[];
  /** What it becomes if the crawl has not seen it yet. */
  state: 'queued' | 'disallowed' | 'target';
}

/** A subresource, or another site's link target, with the distinct pages of this step that reference it. */
export interface TargetFound {
  url: string;
  kind: 'resource' | 'link';
  resourceKind?: SnapshotResource['kind'];
  external: boolean;
  referrers: string[];
}

/** One fetched page of the step: the claimed URL's answer (null: unreachable). */
export interface StepPage {
  url: string;
  page: SnapshotPage | null;
  answeredHtml: boolean;
  /** The URL that answered last: not discovered again. */
  answeredUrl?: string;
}

export interface PageStepCommit {
  step: number;
  pages: StepPage[];
  links: LinkFound[];
  targets: TargetFound[];
  rateLimitedPages: number;
  externalCheckBudget: number;
  /** Claimed URLs of application shells to render (src/crawl/app-shell.ts): they wait as 'rendering'. */
  shells?: string[];
}

export interface PageStepResult {
  claimed: number;
  pagesCrawled: number;
  pagesDiscovered: number;
  pageRequests: number;
  rateLimitedPages: number;
  /** The step's application shells, for the workflow to have them rendered (absent: none). */
  shells?: string[];
}

/**
 * Writes a step's work in one transaction: its pages, the URLs and targets they found (referrer
 * counts added), the budget spent, and the step's result. A step whose pages are no longer its own
 * (another try of it committed first) writes nothing and returns that try's result.
 */
export async function commitPageStep(db: Db, crawlId: string, commit: PageStepCommit): Promise<PageStepResult> {
  return db.transaction(async (trx) => {
    await trx('crawl_runs').where({ crawl_id: crawlId }).forUpdate().first('crawl_id');
    const stepKey = `page-${commit.step}`;
    const done = (await trx('crawl_steps').where({ crawl_id: crawlId, step: stepKey }).first('result')) as
      { result: string } | undefined;
    if (done) return JSON.parse(done.result) as PageStepResult;
    const readBefore = await finalsReadBefore(trx, crawlId, commit);
    const shells = shellsToRender(commit, readBefore);
    const htmlAdded = await writePages(trx, crawlId, commit, shells);
    const discovered = await upsertLinks(trx, crawlId, commit.links, readBefore);
    const externalAdded = await upsertTargets(trx, crawlId, commit.targets, commit.externalCheckBudget, readBefore);
    const [run] = (await trx('crawl_runs')
      .where({ crawl_id: crawlId })
      .increment({
        html_pages: htmlAdded,
        pages_crawled: commit.pages.filter((p) => p.page).length,
        pages_discovered: discovered,
        page_requests: commit.pages.length,
        rate_limited_pages: commit.rateLimitedPages,
        external_targets: externalAdded,
      })
      .returning(['pages_crawled', 'pages_discovered', 'page_requests', 'rate_limited_pages'])) as {
      pages_crawled: number;
      pages_discovered: number;
      page_requests: number;
      rate_limited_pages: number;
    }[];
    const result: PageStepResult = {
      claimed: commit.pages.length,
      pagesCrawled: run!.pages_crawled,
      pagesDiscovered: run!.pages_discovered,
      pageRequests: run!.page_requests,
      rateLimitedPages: run!.rate_limited_pages,
      ...(shells.length ? { shells } : {}),
    };
    await trx('crawl_steps').insert({ crawl_id: crawlId, step: stepKey, result: JSON.stringify(result) });
    return result;
  });
}

/**
 * The final URLs of the step's HTML pages that an earlier step already read: the same page reached
 * again (directly, or through a redirect to it). Its links were counted then, so they are not again.
 */
async function finalsReadBefore(trx: Trx, crawlId: string, commit: PageStepCommit): Promise<Set<string>> {
  const finals = [...new Set(commit.pages.flatMap((p) => (p.answeredHtml ? [p.page!.finalUrl] : [])))];
  if (finals.length === 0) return new Set();
  const rows = (await trx('crawl_html_finals')
    .where({ crawl_id: crawlId })
    .whereRaw('final_url = ANY(?::text[])', [finals])
    .select('final_url')) as { final_url: string }[];
  return new Set(rows.map((r) => r.final_url));
}

/** The step's shells, each page rendered once: not one read before, nor a second URL of the same page. */
export function shellsToRender(commit: PageStepCommit, readBefore: ReadonlySet<string>): string[] {
  if (!commit.shells?.length) return [];
  const finalOf = new Map(commit.pages.map((p) => [p.url, p.page?.finalUrl ?? p.url]));
  const taken = new Set(readBefore);
  return commit.shells.filter((url) => {
    const final = finalOf.get(url) ?? url;
    if (taken.has(final)) return false;
    taken.add(final);
    return true;
  });
}

/** The step's pages and their states; returns how many new HTML pages spent the budget. */
async function writePages(trx: Trx, crawlId: string, commit: PageStepCommit, shells: string[]): Promise<number> {
  const fetched = commit.pages.filter((p) => p.page);
  for (let from = 0; from < fetched.length; from += 200) {
    await trx('crawl_pages').insert(
      fetched.slice(from, from + 200).map(({ url, page }) => {
        const { body, ...metadata } = page!;
        return { crawl_id: crawlId, url, page: JSON.stringify(metadata), body };
      }),
    );
  }
  // A shell waits for its rendering: the links it shows then may still be shallower than those queued.
  await trx.raw(
    `UPDATE crawl_frontier SET state = CASE WHEN url = ANY(:shells) THEN 'rendering'
                                            WHEN url = ANY(:crawled) THEN 'crawled' ELSE 'unreachable' END
      WHERE crawl_id = :crawlId AND state = 'claimed' AND step = :step`,
    { crawlId, step: commit.step, crawled: fetched.map((p) => p.url), shells },
  );
  const answered = [
    ...new Set(commit.pages.flatMap((p) => (p.answeredUrl && p.answeredUrl !== p.url ? [p.answeredUrl] : []))),
  ];
  if (answered.length > 0)
    await trx.raw(
      `INSERT INTO crawl_frontier (crawl_id, url, state, alias_key)
       SELECT :crawlId, u, 'seen', u FROM unnest(:answered::text[]) AS u
       ON CONFLICT (crawl_id, url) DO NOTHING`,
      { crawlId, answered },
    );
  const finals = [...new Set(fetched.filter((p) => p.answeredHtml).map((p) => p.page!.finalUrl))];
  if (finals.length === 0) return 0;
  const added = await trx.raw<{ rowCount: number }>(
    `INSERT INTO crawl_html_finals (crawl_id, final_url) SELECT :crawlId, u FROM unnest(:finals::text[]) AS u
     ON CONFLICT DO NOTHING`,
    { crawlId, finals },
  );
  return added.rowCount;
}

/** Page-like states an `/index.html` URL is an alias of (RFC-less static-host convention). */
const ALIASABLE_STATES = ['queued', 'claimed', 'rendering', 'crawled', 'unreachable', 'over_budget'];

/**
 * The first page-like URL the crawl knows for each alias key of `urls` (the page an `/index.html` URL
 * stands for, or the reverse). Callers add the URLs they queue, so a batch's own aliases are found too.
 */
export async function pagesByAliasKey(
  db: Knex,
  crawlId: string,
  urls: readonly string[],
): Promise<Map<string, string>> {
  const first = new Map<string, string>();
  if (urls.length === 0) return first;
  const rows = (await db('crawl_frontier')
    .where({ crawl_id: crawlId })
    .whereRaw('alias_key = ANY(?::text[])', [[...new Set(urls.map(indexAliasKey))]])
    .whereRaw('state = ANY(?::text[])', [ALIASABLE_STATES])
    .orderBy('seq')
    .select('alias_key', 'url')) as { alias_key: string; url: string }[];
  for (const row of rows) if (!first.has(row.alias_key)) first.set(row.alias_key, row.url);
  return first;
}

/**
 * Found URLs: a known one gains its referrers (but not pages in `readBefore`, counted already); a new
 * one becomes an alias when a page-like URL of the same directory is known, else takes its found
 * state. Returns how many new URLs were seen.
 */
export async function upsertLinks(
  trx: Trx,
  crawlId: string,
  links: readonly LinkFound[],
  readBefore: ReadonlySet<string> = new Set(),
): Promise<number> {
  if (links.length === 0) return 0;
  const urls = links.map((l) => l.url);
  const known = new Set(
    (
      (await trx('crawl_frontier')
        .where({ crawl_id: crawlId })
        .whereRaw('url = ANY(?::text[])', [urls])
        .select('url')) as { url: string }[]
    ).map((r) => r.url),
  );
  const fresh = links.filter((l) => !known.has(l.url));
  const aliasOf = await pagesByAliasKey(
    trx,
    crawlId,
    fresh.map((l) => l.url),
  );
  const rows = links.map((link) => {
    const key = indexAliasKey(link.url);
    let state: string = link.state;
    let alias: string | null = null;
    if (!known.has(link.url) && link.state === 'queued') {
      const first = aliasOf.get(key);
      if (first !== undefined && first !== link.url) [state, alias] = ['alias', first];
      else aliasOf.set(key, link.url);
    }
    return {
      url: link.url,
      state,
      depth: link.depth,
      ...referrerColumns(known.has(link.url), link.referrers, readBefore),
      alias_key: key,
      alias_of: alias,
    };
  });
  await trx.raw(
    `INSERT INTO crawl_frontier (crawl_id, url, state, depth, found_on, linked_from, alias_key, alias_of)
     SELECT :crawlId, r.url, r.state, r.depth, r.found_on, r.linked_from, r.alias_key, r.alias_of
       FROM json_to_recordset(:rows::json)
         AS r(url text, state text, depth int, found_on text[], linked_from int, alias_key text, alias_of text)
     ON CONFLICT (crawl_id, url) DO UPDATE SET
       linked_from = crawl_frontier.linked_from + excluded.linked_from,
       found_on = (crawl_frontier.found_on || excluded.found_on)[1:${CRAWL_LIMITS.foundOnCap}],
       depth = CASE WHEN crawl_frontier.state = 'queued' THEN LEAST(crawl_frontier.depth, excluded.depth)
                    ELSE crawl_frontier.depth END`,
    { crawlId, rows: JSON.stringify(rows) },
  );
  return fresh.length;
}

/**
 * Subresources and other sites' links: a known one gains its referrers (but not pages in `readBefore`);
 * a new external one is kept while the external check budget lasts. Returns how many new external
 * targets were kept.
 */
export async function upsertTargets(
  trx: Trx,
  crawlId: string,
  targets: readonly TargetFound[],
  externalBudget: number,
  readBefore: ReadonlySet<string> = new Set(),
): Promise<number> {
  if (targets.length === 0) return 0;
  const known = new Set(
    (
      (await trx('crawl_targets')
        .where({ crawl_id: crawlId })
        .whereRaw('url = ANY(?::text[])', [targets.map((t) => t.url)])
        .select('url')) as { url: string }[]
    ).map((r) => r.url),
  );
  const run = (await trx('crawl_runs').where({ crawl_id: crawlId }).first('external_targets')) as {
    external_targets: number;
  };
  let externalLeft = Math.max(0, externalBudget - run.external_targets);
  let externalAdded = 0;
  const kept = targets.filter((t) => {
    if (known.has(t.url) || !t.external) return true;
    if (externalLeft <= 0) return false;
    externalLeft--;
    externalAdded++;
    return true;
  });
  const rows = kept.map((t) => ({
    url: t.url,
    kind: t.kind,
    resource_kind: t.resourceKind ?? null,
    external: t.external,
    ...referrerColumns(known.has(t.url), t.referrers, readBefore),
  }));
  await trx.raw(
    `INSERT INTO crawl_targets (crawl_id, url, kind, resource_kind, external, found_on, linked_from)
     SELECT :crawlId, r.url, r.kind, r.resource_kind, r.external, r.found_on, r.linked_from
       FROM json_to_recordset(:rows::json)
         AS r(url text, kind text, resource_kind text, external boolean, found_on text[], linked_from int)
     ON CONFLICT (crawl_id, url) DO UPDATE SET
       linked_from = crawl_targets.linked_from + excluded.linked_from,
       found_on = (crawl_targets.found_on || excluded.found_on)[1:${CRAWL_LIMITS.foundOnCap}]`,
    { crawlId, rows: JSON.stringify(rows) },
  );
  return externalAdded;
}

/**
 * A target's referrers as stored: a known target does not count again a page read before (a page
 * whose content changed between its two reads may still name a new target, and that one counts it).
 */
function referrerColumns(
  known: boolean,
  referrers: readonly string[],
  readBefore: ReadonlySet<string>,
): { found_on: string[]; linked_from: number } {
  const counted = known && readBefore.size > 0 ? referrers.filter((r) => !readBefore.has(r)) : referrers;
  return { found_on: counted.slice(0, CRAWL_LIMITS.foundOnCap), linked_from: counted.length };
}
