import robotsParser from 'robots-parser';
import type { RobotsFetch } from '../analyzers/snapshot';
import { AuditFailure } from '../../workflows/contracts';
import { OutboundError, RedirectError } from '../outbound/errors';
import type { CrawlContext } from './context';
import { decodeBodyText } from './decode';
import { CRAWL_LIMITS } from './limits';
import { crawlRequest, fetchWithBackoff } from './polite-fetch';
import { errorText } from './responses';

/** Our product token in robots.txt groups (RFC 9309 §2.2.1). */
export const ROBOTS_PRODUCT_TOKEN = 'DomainAuditBot';

export interface RobotsRules {
  isAllowed(url: string): boolean;
  crawlDelaySeconds(): number | undefined;
  sitemaps(): string[];
}

/** Rules from a fetched robots.txt; 4xx means "allow all" (RFC 9309 §2.3.1.3). */
export function robotsRules(robotsUrl: string, status: number, body: string): RobotsRules {
  const parsed = robotsParser(robotsUrl, status >= 200 && status < 300 ? body : '');
  return {
    isAllowed: (url) => parsed.isAllowed(url, ROBOTS_PRODUCT_TOKEN) !== false,
    crawlDelaySeconds: () => parsed.getCrawlDelay(ROBOTS_PRODUCT_TOKEN),
    sitemaps: () => parsed.getSitemaps(),
  };
}

/** What an unreachable robots.txt means for another host of the site: complete disallow (RFC 9309 §2.3.1.4). */
const DISALLOW_ALL = 'User-agent: *\nDisallow: /\n';

export interface OriginRobots {
  robots: RobotsFetch;
  rules: RobotsRules;
}

/**
 * robots.txt of the audited origin. A 429 that persists, a 5xx or an unreachable file fails the audit
 * (the site cannot be crawled politely now); too many redirects count as "allow all".
 */
export async function fetchOriginRobots(context: CrawlContext): Promise<OriginRobots> {
  const robotsUrl = `${context.origin}/robots.txt`;
  try {
    const { result, rateLimited } = await fetchWithBackoff(
      context,
      crawlRequest(context, robotsUrl, CRAWL_LIMITS.robotsMaxBytes),
    );
    const status = result.response.status;
    if (rateLimited) throw new AuditFailure('target_rate_limited', `${robotsUrl} kept answering 429 Too Many Requests`);
    if (status >= 500)
      throw new AuditFailure('domain_unreachable', `${robotsUrl} answered ${status}: the site cannot be crawled now`);
    const body = decodeBodyText(result.response, CRAWL_LIMITS.robotsMaxBytes);
    const keptBody = status >= 200 && status < 300 ? body : body.slice(0, CRAWL_LIMITS.smallBodyBytes);
    return {
      robots: { kind: 'fetched', url: robotsUrl, status, body: keptBody },
      rules: robotsRules(robotsUrl, status, body),
    };
  } catch (error) {
    if (error instanceof AuditFailure) throw error;
    if (error instanceof RedirectError) {
      // RFC 9309 §2.3.1.2: after more than five redirects the file MAY be taken as unavailable (allow all).
      return {
        robots: { kind: 'unreachable', url: robotsUrl, error: error.message },
        rules: robotsRules(robotsUrl, 404, ''),
      };
    }
    if (error instanceof OutboundError)
      throw new AuditFailure('domain_unreachable', `could not fetch ${robotsUrl}: ${errorText(error)}`);
    throw error;
  }
}

/** The rules for any URL of the site: the origin's, or another host's robots.txt fetched on first use (RFC 9309 is per origin). */
export class SiteRobots {
  private readonly otherOrigins = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly context: CrawlContext,
    readonly originRules: RobotsRules,
  ) {}

  async isAllowed(url: string): Promise<boolean> {
    return (await this.rulesFor(url)).isAllowed(url);
  }

  private rulesFor(url: string): Promise<RobotsRules> | RobotsRules {
    const origin = new URL(url).origin;
    if (origin === this.context.origin) return this.originRules;
    let rules = this.otherOrigins.get(origin);
    if (!rules) {
      rules = this.fetchRules(`${origin}/robots.txt`);
      this.otherOrigins.set(origin, rules);
    }
    return rules;
  }

  private fetchRules(robotsUrl: string): Promise<RobotsRules> {
    return fetchWithBackoff(this.context, crawlRequest(this.context, robotsUrl, CRAWL_LIMITS.robotsMaxBytes)).then(
      ({ result }) => {
        const status = result.response.status;
        if (status >= 500 || status === 429) return robotsRules(robotsUrl, 200, DISALLOW_ALL);
        return robotsRules(robotsUrl, status, decodeBodyText(result.response, CRAWL_LIMITS.robotsMaxBytes));
      },
      (error: unknown) => {
        if (error instanceof RedirectError) return robotsRules(robotsUrl, 404, '');
        if (error instanceof OutboundError) return robotsRules(robotsUrl, 200, DISALLOW_ALL);
        throw error;
      },
    );
  }
}
