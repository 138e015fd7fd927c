import { AuditFailure } from '../../../workflows/contracts';
import type { Db } from '../../db/knex';
import { runPool } from '../abort';
import { isAppShell } from '../app-shell';
import { isSameSite, type CrawlContext } from '../context';
import { answeredHtml, fetchPage, type PageOutcome } from '../page-fetch';
import { claimPages, type ClaimedPage } from './frontier-claims';
import { commitPageStep, type PageStepResult } from './frontier-commit';
import { linksFound } from './links-found';
import { committedStep, loadCrawlRun, type CrawlRun } from './run-store';
import { databaseWait, stepContext, stepWindow, type StepEnvironment } from './step-context';

/** Pages a step takes at most (CRAWL_STEP_PAGES). */
export interface PageStepInput {
  crawlId: string;
  step: number;
  stepPages: number;
  /**
   * The crawl renders application shells (it has a browser stage): such pages wait in the frontier
   * as 'rendering' and the result names them, for the workflow to have them rendered.
   */
  renderShells?: boolean;
  /** Every HTML page waits to be rendered (`render: "all"`): the result names them all, shells among them. */
  renderAll?: boolean;
}

/** Rate limiting is judged once this many page requests were made (fewer: too early to tell). */
const RATE_LIMIT_MIN_REQUESTS = 3;

/**
 * One checkpointed step of the crawl: claims up to CRAWL_STEP_PAGES queued pages, fetches them
 * within its share of the audit's per-host limits, and commits what they found in one transaction.
 * A step retried after a lost worker fetches its own pages again; one retried after its commit
 * returns the committed result. `claimed: 0` means there was nothing to take now.
 */
export async function runPageStep(db: Db, input: PageStepInput, env: StepEnvironment): Promise<PageStepResult> {
  const stepKey = `page-${input.step}`;
  const wait = databaseWait(env);
  const done = await wait(() => committedStep<PageStepResult>(db, input.crawlId, stepKey));
  if (done) return done;
  const run = await wait(() => loadCrawlRun(db, input.crawlId));
  if (!run) throw new Error(`crawl ${input.crawlId} does not exist`);
  const window = stepWindow(run, env.concurrencyPerHost);
  const limits = { stepPages: input.stepPages, window };
  const claimed = await wait(() => claimPages(db, input.crawlId, input.step, limits));
  if (claimed.length === 0) return idle(run);
  const { context, robots, siteConcurrency } = stepContext(run, env);
  const outcomes = await fetchClaimed(context, run, claimed, siteConcurrency);
  const found = await linksFound(
    context,
    robots,
    claimed.flatMap((from, i) => {
      const { page, links } = outcomes[i]!;
      return page && links ? [{ pageUrl: page.finalUrl, depth: from.depth, ...links }] : [];
    }),
  );
  const shells = input.renderAll
    ? htmlPages(claimed, outcomes)
    : input.renderShells
      ? appShells(context, claimed, outcomes)
      : [];
  const commit = {
    step: input.step,
    pages: claimed.map((page, i) => {
      const outcome = outcomes[i]!;
      return {
        url: page.url,
        page: outcome.page,
        answeredHtml: outcome.page !== null && answeredHtml(context, outcome.page),
        ...(outcome.answeredUrl ? { answeredUrl: outcome.answeredUrl } : {}),
      };
    }),
    ...found,
    rateLimitedPages: outcomes.filter((o) => o.rateLimited).length,
    externalCheckBudget: env.externalCheckBudget,
    ...(shells.length > 0 ? { shells } : {}),
  };
  return wait(() => commitPageStep(db, input.crawlId, commit));
}

function idle(run: CrawlRun): PageStepResult {
  return {
    claimed: 0,
    pagesCrawled: run.pagesCrawled,
    pagesDiscovered: run.pagesDiscovered,
    pageRequests: run.pageRequests,
    rateLimitedPages: run.rateLimitedPages,
  };
}

/**
 * Fetches the claimed pages in claim order. The home page unreachable fails the audit; so do page
 * requests that mostly keep answering 429, counted over the whole crawl.
 */
async function fetchClaimed(
  context: CrawlContext,
  run: CrawlRun,
  claimed: readonly ClaimedPage[],
  concurrency: number,
): Promise<PageOutcome[]> {
  const outcomes = new Array<PageOutcome>(claimed.length);
  let requests = run.pageRequests;
  let limited = run.rateLimitedPages;
  let answered = 0;
  const order = new Map(claimed.map((page, index) => [page, index]));
  await runPool(context.aborter, claimed, concurrency, async (page) => {
    const outcome = await fetchPage(context, page);
    if (!outcome.page && page.depth === 0)
      throw new AuditFailure(
        'domain_unreachable',
        `could not fetch the home page ${page.url}: ${outcome.error ?? 'unreachable'}`,
      );
    outcomes[order.get(page)!] = outcome;
    requests++;
    if (outcome.rateLimited) limited++;
    if (requests >= RATE_LIMIT_MIN_REQUESTS && limited * 2 > requests)
      throw new AuditFailure(
        'target_rate_limited',
        `${limited} of ${requests} page requests kept answering 429 Too Many Requests`,
      );
    answered++;
    context.input.onProgress?.({
      phase: 'crawling',
      pagesCrawled: run.pagesCrawled + answered,
      pagesDiscovered: run.pagesDiscovered,
    });
  });
  return outcomes;
}

/** The claimed URLs of the step's 2xx same-site HTML pages (those whose links were read). */
function htmlPages(claimed: readonly ClaimedPage[], outcomes: readonly PageOutcome[]): string[] {
  return claimed.flatMap((from, i) => (outcomes[i]!.page?.body && outcomes[i]!.links ? [from.url] : []));
}

/**
 * The claimed URLs of the step's application shells (src/crawl/app-shell.ts): 2xx same-site HTML
 * pages that run a script, show almost no text and link to no other page of the site.
 */
function appShells(context: CrawlContext, claimed: readonly ClaimedPage[], outcomes: readonly PageOutcome[]): string[] {
  return claimed.flatMap((from, i) => {
    const { page, links } = outcomes[i]!;
    if (!page?.body || !links) return [];
    const sameSite = links.links.filter((link) => link !== page.finalUrl && isSameSite(context, link)).length;
    return isAppShell(page.body, sameSite) ? [from.url] : [];
  });
}
