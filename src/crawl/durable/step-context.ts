import type { CidrList } from '../../outbound/policy';
import type { LookupAllFn } from '../../outbound/resolve';
import { Aborter } from '../abort';
import { createCrawlContext, type CrawlContext, type CrawlProgress } from '../context';
import { CRAWL_LIMITS } from '../limits';
import { robotsRules, SiteRobots } from '../robots';
import type { CrawlRun } from './run-store';

/** What every step of a durable crawl is given besides its crawl: the worker's outbound policy. */
export interface StepEnvironment {
  allow: CidrList;
  userAgent: string;
  externalCheckBudget: number;
  /** Requests in flight to the audited host for the whole audit (CRAWL_CONCURRENCY_PER_HOST). */
  concurrencyPerHost: number;
  signal?: AbortSignal;
  onProgress?: (progress: CrawlProgress) => void;
  lookup?: LookupAllFn;
  /**
   * Runs one database operation of a step until Postgres answers (the activity's wait through an
   * outage, heartbeating): pages already fetched are committed once it is back, not fetched again.
   */
  untilDatabaseAnswers?: <T>(operation: () => Promise<T>) => Promise<T>;
  /** The DNS and TLS probes (default on; tests of a loopback site turn them off). */
  lookupDns?: boolean;
  probeTls?: boolean;
}

export interface StepContext {
  context: CrawlContext;
  robots: SiteRobots;
  /** Requests this step may have in flight to one host of the audited site. */
  siteConcurrency: number;
}

/** Steps of one crawl in flight in each of its phases (the crawl cursor's `window` and `checkWindow`). */
export interface CrawlWindows {
  /** Page steps: the audit's per-host limit split between them, one request each at most. */
  pages: number;
  /** Link and resource checks: no more than the external hosts' limit, so each step has one of its requests. */
  checks: number;
}

/**
 * How many steps of one crawl run at once. The audit's per-host limit is split between them, so the
 * site never sees more than CRAWL_CONCURRENCY_PER_HOST requests in flight, however many workers take
 * its steps. Page steps go up to one request each (PAGE_STEP_WINDOW), so a second worker has steps to
 * take while the first waits on the database; check steps stay within the external hosts' limit.
 * `renderAll`: every page of a step waits on the browser queue, so the crawl keeps two steps there. A
 * Crawl-delay makes the crawl one request at a time: one step.
 */
export function crawlWindows(
  run: Pick<CrawlRun, 'robots'>,
  concurrencyPerHost: number,
  renderAll = false,
): CrawlWindows {
  if (crawlDelayOf(run) !== undefined) return { pages: 1, checks: 1 };
  const widest = renderAll ? RENDER_ALL_STEP_WINDOW : PAGE_STEP_WINDOW;
  const pages = Math.max(1, Math.min(widest, concurrencyPerHost));
  return { pages, checks: Math.min(pages, CRAWL_LIMITS.externalConcurrencyPerHost) };
}

/** Page steps of one crawl in flight at most: two workers share an audit, two steps each. */
const PAGE_STEP_WINDOW = 4;
/** With `render: "all"`: the share of the browser queue its chunking is sized for (workflows/crawl.ts). */
const RENDER_ALL_STEP_WINDOW = 2;
/**
 * The pages a crawl's steps hold at once, in steps of CRAWL_STEP_PAGES: a wider window takes smaller
 * steps, so a lone worker holding the whole window holds no more pages than two full steps.
 */
const PAGES_IN_FLIGHT_STEPS = 2;

/** Pages one step takes at most in a window of `window` steps (never more than CRAWL_STEP_PAGES). */
export function stepPagesIn(window: number, stepPages: number): number {
  return Math.max(1, Math.min(stepPages, Math.ceil((stepPages * PAGES_IN_FLIGHT_STEPS) / window)));
}

/**
 * The context of one step: the crawl's origin and robots.txt, this step's share of the host limits
 * in a window of `window` steps (side work beside the page steps takes a page step's share).
 */
export function stepContext(
  run: CrawlRun,
  env: StepEnvironment,
  window = crawlWindows(run, env.concurrencyPerHost).pages,
): StepContext {
  const site = Math.max(1, Math.floor(env.concurrencyPerHost / window));
  const external = Math.max(1, Math.floor(CRAWL_LIMITS.externalConcurrencyPerHost / window));
  const context = createCrawlContext(
    {
      origin: run.origin,
      pageBudget: run.pageBudget,
      externalCheckBudget: env.externalCheckBudget,
      allow: env.allow,
      userAgent: env.userAgent,
      ...(env.signal ? { signal: env.signal } : {}),
      ...(env.onProgress ? { onProgress: env.onProgress } : {}),
      ...(env.lookup ? { lookup: env.lookup } : {}),
      ...(env.lookupDns !== undefined ? { lookupDns: env.lookupDns } : {}),
      ...(env.probeTls !== undefined ? { probeTls: env.probeTls } : {}),
      hostConcurrency: { site, external },
    },
    new Aborter(env.signal),
  );
  const rules = originRules(run);
  context.hostLimits.applyCrawlDelay(context.originUrl.host, rules.crawlDelaySeconds());
  return { context, robots: new SiteRobots(context, rules), siteConcurrency: site };
}

function originRules(run: Pick<CrawlRun, 'robots'>) {
  const { robots } = run;
  // An unreachable robots.txt that did not fail the crawl was an endless redirect: allow all.
  return robots.kind === 'fetched'
    ? robotsRules(robots.url, robots.status, robots.body)
    : robotsRules(robots.url, 404, '');
}

function crawlDelayOf(run: Pick<CrawlRun, 'robots'>): number | undefined {
  const seconds = originRules(run).crawlDelaySeconds();
  return seconds !== undefined && seconds > 0 ? seconds : undefined;
}

/** The environment's database wait, or the operation as it is. */
export function databaseWait(
  env: Pick<StepEnvironment, 'untilDatabaseAnswers'>,
): <T>(operation: () => Promise<T>) => Promise<T> {
  return env.untilDatabaseAnswers ?? ((operation) => operation());
}
