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

/**
 * How many steps of one crawl run at once: the audit's per-host limit split between them, so the
 * site never sees more than CRAWL_CONCURRENCY_PER_HOST requests in flight, however many workers take
 * its steps. A Crawl-delay makes the crawl one request at a time: one step.
 */
export function stepWindow(run: Pick<CrawlRun, 'robots'>, concurrencyPerHost: number): number {
  if (crawlDelayOf(run) !== undefined) return 1;
  return Math.max(1, Math.min(STEP_WINDOW, concurrencyPerHost));
}

/** Steps of one crawl in flight at most: two workers share an audit. */
const STEP_WINDOW = 2;

/** The context of one step: the crawl's origin and robots.txt, this step's share of the host limits. */
export function stepContext(run: CrawlRun, env: StepEnvironment): StepContext {
  const window = stepWindow(run, env.concurrencyPerHost);
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
