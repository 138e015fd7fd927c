import type { CrawlSnapshot } from '../../src/analyzers';
import { crawlSite } from '../../src/crawl/crawler';
import { parseCidrList } from '../../src/outbound/policy';
import { serveFixtureSite } from './fixture-server';

/** A site served on loopback at `origin`, crawled in-process with the DNS and TLS probes off. */
export function crawlOnLoopback(origin: string, pageBudget: number): Promise<CrawlSnapshot> {
  return crawlSite({
    origin,
    pageBudget,
    allow: parseCidrList('127.0.0.0/8'),
    userAgent: 'DomainAuditBot/0.1 (+https://domain-audit.example/bot)',
    lookupDns: false,
    probeTls: false,
  });
}

/** A fixture site (test/fixtures/sites) crawled on loopback with the DNS and TLS probes off. */
export async function crawlFixtureSite(site: string, pageBudget = 200): Promise<CrawlSnapshot> {
  const server = await serveFixtureSite(site);
  try {
    return await crawlOnLoopback(server.origin, pageBudget);
  } finally {
    await server.close();
  }
}
