import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { DnsFacts, ProviderFacts, TlsFacts } from '../analyzers/snapshot';
import { resolveAllowed } from '../outbound/resolve';
import type { CrawlContext, CrawlSiteInput } from './context';
import { collectDnsFacts } from './dns-facts';
import { queryDnssec } from './dnssec';
import { CRAWL_LIMITS } from './limits';
import { collectTlsFacts } from './tls-facts';

/** TLS and DNS facts of the origin; a failure is recorded for the analyzers, only an abort rejects. */

/** The hostname without IPv6 brackets. */
function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

export async function tlsProbe(context: CrawlContext): Promise<ProviderFacts<TlsFacts> | undefined> {
  const { originUrl, input, aborter } = context;
  if (originUrl.protocol !== 'https:' || input.probeTls === false) return undefined;
  try {
    const resolved = await aborter.race(resolveAllowed(originUrl.hostname, input.allow));
    const port = originUrl.port === '' ? 443 : Number(originUrl.port);
    const facts = await aborter.race(
      collectTlsFacts(bareHostname(originUrl), port, {
        connectTimeoutMs: CRAWL_LIMITS.requestTimeoutMs,
        lookupAddress: resolved.address,
      }),
    );
    return { ok: true, facts };
  } catch (error) {
    if (input.signal?.aborted) throw error;
    return {
      ok: false,
      error: `TLS probe of ${originUrl.host} failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Wait for one DNS answer (per try of node:dns, per server of the DS query). */
const DNS_TIMEOUT_MS = 5_000;

/** The host's and domain's records and the domain's DS answer, from the same resolvers. */
async function collectAll(hostname: string, site: string, input: CrawlSiteInput): Promise<DnsFacts> {
  const timeoutMs = input.dnsResolver?.timeoutMs ?? DNS_TIMEOUT_MS;
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (input.dnsResolver) resolver.setServers(input.dnsResolver.servers);
  const [facts, dnssecAnswer] = await Promise.all([
    collectDnsFacts(hostname, site, resolver),
    queryDnssec(site, { servers: resolver.getServers(), timeoutMs }),
  ]).finally(() => resolver.cancel()); // a failure leaves no look-up running
  return { ...facts, dnssec: dnssecAnswer.ds.length > 0, dnssecAnswer };
}

/** DNS facts of the host and its registrable domain; skipped for IP literals. */
export async function dnsProbe(context: CrawlContext): Promise<ProviderFacts<DnsFacts> | undefined> {
  const { originUrl, input, aborter } = context;
  const hostname = bareHostname(originUrl);
  if (input.lookupDns === false || isIP(hostname) !== 0) return undefined;
  try {
    return { ok: true, facts: await aborter.race(collectAll(hostname, context.site, input)) };
  } catch (error) {
    if (input.signal?.aborted) throw error;
    return {
      ok: false,
      error: `DNS lookup of ${hostname} failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
