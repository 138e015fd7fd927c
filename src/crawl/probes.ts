import { randomBytes } from 'node:crypto';
import type {
  CorsProbeFacts,
  HttpsRedirectFacts,
  LlmsTxtFetch,
  NotFoundProbe,
  ProviderFacts,
  RedirectHop,
  SecurityTxtFetch,
} from '../analyzers/snapshot';
import { OutboundError, RedirectError } from '../outbound/errors';
import type { CrawlContext } from './context';
import { decodeBodyText } from './decode';
import { CRAWL_LIMITS } from './limits';
import { crawlRequest, fetchWithBackoff } from './polite-fetch';
import { dnsProbe, tlsProbe } from './provider-probes';
import { contentTypeOf, errorText, isTextType, toHops } from './responses';

/** HTTP side probes of the origin. None of them rejects except on abort: failures are recorded. */

const CORS_PROBE_ORIGIN = 'https://audit-cors-probe.invalid';

/** Every side probe in parallel, in snapshot order; started once the home page answered, so a failing site gets no extra traffic. */
export function startSideProbes(context: CrawlContext) {
  const probes = Promise.all([
    fetchLlmsTxt(context),
    fetchSecurityTxt(context),
    fetchNotFoundProbe(context),
    corsProbe(context),
    httpsRedirectProbe(context),
    tlsProbe(context),
    dnsProbe(context),
  ]);
  probes.catch(() => undefined);
  return probes;
}

export type SideProbes = ReturnType<typeof startSideProbes>;

async function fetchLlmsTxt(context: CrawlContext): Promise<LlmsTxtFetch> {
  const url = `${context.origin}/llms.txt`;
  try {
    const { result } = await fetchWithBackoff(context, crawlRequest(context, url, CRAWL_LIMITS.smallBodyBytes));
    const response = result.response;
    const contentType = contentTypeOf(response.headers);
    return {
      kind: 'fetched',
      url,
      status: response.status,
      ...(contentType !== undefined ? { contentType } : {}),
      bodyStart: decodeBodyText(response, CRAWL_LIMITS.smallBodyBytes).slice(0, 1024),
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return { kind: 'unreachable', url, error: errorText(error) };
  }
}

async function fetchSecurityTxt(context: CrawlContext): Promise<SecurityTxtFetch> {
  const url = `${context.origin}/.well-known/security.txt`;
  try {
    const { result } = await fetchWithBackoff(context, crawlRequest(context, url, CRAWL_LIMITS.smallBodyBytes));
    const response = result.response;
    return {
      kind: 'fetched',
      url: result.finalUrl,
      status: response.status,
      headers: response.headers,
      body: decodeBodyText(response, CRAWL_LIMITS.smallBodyBytes),
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return { kind: 'unreachable', url, error: errorText(error) };
  }
}

/** A random path that cannot exist: how the site answers a missing page (soft 404s). */
async function fetchNotFoundProbe(context: CrawlContext): Promise<NotFoundProbe> {
  const url = `${context.origin}/da-404-check-${randomBytes(8).toString('hex')}`;
  const maxBytes = CRAWL_LIMITS.smallBodyBytes * 4;
  try {
    const { result } = await fetchWithBackoff(
      context,
      crawlRequest(context, url, maxBytes, { accept: 'text/html,*/*;q=0.5' }),
    );
    const response = result.response;
    const contentType = contentTypeOf(response.headers);
    return {
      kind: 'fetched',
      url,
      finalUrl: result.finalUrl,
      status: response.status,
      redirectChain: toHops(result.chain.slice(0, -1)),
      ...(contentType !== undefined ? { contentType } : {}),
      body: isTextType(response.headers) ? decodeBodyText(response, maxBytes) : null,
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return { kind: 'unreachable', url, error: errorText(error) };
  }
}

/** The home page requested with a foreign Origin: does the site reflect it with credentials? */
async function corsProbe(context: CrawlContext): Promise<ProviderFacts<CorsProbeFacts>> {
  try {
    const { result } = await fetchWithBackoff(
      context,
      crawlRequest(context, context.homeUrl, 0, { origin: CORS_PROBE_ORIGIN }),
    );
    return {
      ok: true,
      facts: {
        url: result.finalUrl,
        originSent: CORS_PROBE_ORIGIN,
        status: result.response.status,
        headers: result.response.headers,
      },
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return { ok: false, error: errorText(error) };
  }
}

/** Whether the first redirect of http:// goes to https:// on the same host. */
function firstHopToHttpsSameHost(chain: readonly RedirectHop[], httpUrl: string, hostname: string): boolean {
  const location = chain[0]?.location;
  if (!location) return false;
  try {
    const target = new URL(location, httpUrl);
    return target.protocol === 'https:' && target.hostname === hostname;
  } catch {
    return false;
  }
}

/** For https origins: what http://host/ answers, and whether it moves to https first. */
async function httpsRedirectProbe(context: CrawlContext): Promise<ProviderFacts<HttpsRedirectFacts> | undefined> {
  const { hostname, protocol } = context.originUrl;
  if (protocol !== 'https:') return undefined;
  const httpUrl = `http://${hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname}/`;
  try {
    const { result } = await fetchWithBackoff(context, crawlRequest(context, httpUrl, 0));
    const chain = toHops(result.chain);
    return {
      ok: true,
      facts: {
        httpUrl,
        chain,
        finalUrl: result.finalUrl,
        sameHostHttpsFirst: firstHopToHttpsSameHost(chain, httpUrl, hostname),
      },
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    // A redirect chain that loops still tells whether the first hop went to https on the same host.
    if (error instanceof RedirectError && error.redirectChain && error.redirectChain.length > 0) {
      const chain = toHops(error.redirectChain);
      return {
        ok: true,
        facts: {
          httpUrl,
          chain,
          finalUrl: null,
          sameHostHttpsFirst: firstHopToHttpsSameHost(chain, httpUrl, hostname),
        },
      };
    }
    return { ok: false, error: `${httpUrl}: ${errorText(error)}` };
  }
}
