/** Redirects, by hand: every hop is a request of its own, checked by the outbound policy again. */
import { OutboundError, RedirectError, type RedirectHop } from './errors';
import { outboundRequest, parseTarget, type OutboundRequestOptions, type OutboundResponse } from './client';

export interface FollowRedirectsOptions extends OutboundRequestOptions {
  /** Redirects followed at most (default 5, as robots.txt fetching needs). */
  maxRedirects?: number;
}

export interface FollowRedirectsResult {
  /** The final, non-redirect response. */
  response: OutboundResponse;
  /** Every response in order, the final one included; chain.length - 1 redirects were followed. */
  chain: RedirectHop[];
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * Follows redirects hop by hop. Each hop is a full outboundRequest, so its host is resolved and
 * checked by the policy before any byte is sent to it. Throws RedirectError on a loop, on more
 * than maxRedirects hops, or on an unusable Location; any error carries `redirectChain`.
 */
export async function followRedirects(opts: FollowRedirectsOptions): Promise<FollowRedirectsResult> {
  const maxRedirects = opts.maxRedirects ?? 5;
  const chain: RedirectHop[] = [];
  const seen = new Set<string>();
  let current = { ...opts, headers: { ...(opts.headers ?? {}) } };

  for (;;) {
    const requestUrl = parseTarget(current.url).href;
    seen.add(requestUrl);
    let res: OutboundResponse;
    try {
      res = await outboundRequest(current);
    } catch (err) {
      if (err instanceof OutboundError) err.redirectChain = [...chain];
      throw err;
    }
    const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
    const hop: RedirectHop = { url: res.url, status: res.status };
    if (location !== undefined && REDIRECT_STATUSES.has(res.status)) hop.location = location;
    chain.push(hop);
    if (hop.location === undefined) return { response: res, chain, finalUrl: res.url };

    let next: URL;
    try {
      next = new URL(hop.location, res.url);
    } catch {
      throw new RedirectError('invalid_location', `invalid redirect Location "${hop.location}" from ${res.url}`, chain);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new RedirectError(
        'invalid_location',
        `redirect to unsupported protocol ${next.protocol} from ${res.url}`,
        chain,
      );
    }
    next.hash = '';
    if (seen.has(next.href))
      throw new RedirectError('loop', `redirect loop: ${res.url} leads back to ${next.href}`, chain);
    if (chain.length > maxRedirects) {
      throw new RedirectError(
        'too_many_redirects',
        `more than ${maxRedirects} redirects starting at ${chain[0].url}`,
        chain,
      );
    }

    const headers = { ...current.headers };
    // Never leak credentials to another origin.
    if (next.origin !== new URL(res.url).origin)
      for (const h of Object.keys(headers)) if (CREDENTIAL_HEADERS.includes(h.toLowerCase())) delete headers[h];
    // 303 always, and 301/302 after POST (as browsers do), become a body-less GET.
    let method = current.method ?? 'GET';
    let body = current.body;
    if (
      (res.status === 303 && method !== 'HEAD') ||
      ((res.status === 301 || res.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      for (const h of Object.keys(headers)) if (/^content-/i.test(h)) delete headers[h];
    }
    current = { ...current, url: next.href, method, body, headers };
  }
}
