import robotsParser from 'robots-parser';

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
