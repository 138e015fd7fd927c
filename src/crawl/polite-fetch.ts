import type { OutboundRequestOptions } from '../outbound/client';
import { followRedirects, type FollowRedirectsResult } from '../outbound/redirects';
import type { CrawlContext } from './context';
import { retryAfterMs } from './host-limits';
import { CRAWL_LIMITS } from './limits';

/** Compressed like browsers get it, so the compression analyzer sees the real answer. */
const ACCEPT_ENCODING = 'br, gzip';

export type CrawlRequest = OutboundRequestOptions & { maxRedirects: number };

export interface Fetched {
  result: FollowRedirectsResult;
  /** The final answer was 429 after every try. */
  rateLimited: boolean;
}

/** Options of one crawl request through the SSRF-safe client: bounded, following up to maxRedirects. */
export function crawlRequest(
  context: CrawlContext,
  url: string,
  maxBodyBytes: number,
  headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' = 'GET',
): CrawlRequest {
  return {
    url,
    method,
    timeoutMs: CRAWL_LIMITS.requestTimeoutMs,
    maxBodyBytes,
    allow: context.input.allow,
    userAgent: context.input.userAgent,
    allowInvalidTls: true,
    maxRedirects: CRAWL_LIMITS.maxRedirects,
    lookup: context.lookup,
    headers: { 'accept-encoding': ACCEPT_ENCODING, ...headers },
  };
}

/**
 * GET/HEAD with redirects within the host's limits, backing off on 429/503 (Retry-After, at most
 * maxTries). Throws OutboundError.
 */
export async function fetchWithBackoff(context: CrawlContext, request: CrawlRequest): Promise<Fetched> {
  for (let attempt = 1; ; attempt++) {
    const result = await context.hostLimits.forUrl(request.url).run(context.aborter, () => followRedirects(request));
    const status = result.response.status;
    if ((status === 429 || status === 503) && attempt < CRAWL_LIMITS.maxTries) {
      await context.aborter.sleep(retryAfterMs(result.response.headers['retry-after'], 1_000 * attempt));
      continue;
    }
    return { result, rateLimited: status === 429 };
  }
}
