/**
 * The one outbound HTTP client shared by the crawler, the analyzers and the webhook sender.
 *
 * Safety properties, each enforced here so no caller can forget them:
 * - the host is resolved once (resolveAllowed) and the socket is pinned to that checked address
 *   through the connector's `lookup` (pinned-agents.ts), so DNS rebinding between check and
 *   connect is impossible, while SNI, certificate name checks and the Host header still use the
 *   real host name;
 * - redirects are never followed implicitly: followRedirects() (redirects.ts) does it hop by hop,
 *   and every hop goes through the policy again;
 * - one deadline covers DNS, connect, headers and body; bodies are capped at maxBodyBytes.
 */
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { Deadline, wrapError, type ExchangeState } from './deadline';
import { OutboundError } from './errors';
import { measureStalls } from './loop-stall';
import { agentFor } from './pinned-agents';
import type { CidrList } from './policy';
import { resolveAllowed, type LookupAllFn } from './resolve';

/** Honest default User-Agent naming the bot (docs/analyzers.md, Crawl rules). */
export const DEFAULT_USER_AGENT = 'DomainAuditBot/0.1 (+https://domain-audit.example/bot)';

export interface OutboundRequestOptions {
  url: string;
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Deadline for everything: DNS, connect, TLS, headers and body. */
  timeoutMs: number;
  /** Bytes of body kept; the rest is not read (the connection is dropped), truncated = true. */
  maxBodyBytes: number;
  allow: CidrList;
  userAgent?: string;
  /** For the TLS analyzers only: complete the request despite a bad certificate and report it. */
  allowInvalidTls?: boolean;
  /** Replaces the system resolver (tests, a caching resolver). Consulted exactly once. */
  lookup?: LookupAllFn;
}

export interface OutboundResponse {
  url: string;
  status: number;
  /** Lower-case names; repeated headers such as set-cookie are arrays. */
  headers: Record<string, string | string[]>;
  body: Buffer;
  truncated: boolean;
  /**
   * From the call until response headers (includes DNS, connect, TLS on a fresh connection), less
   * the time this process itself was stalled meanwhile (loop-stall.ts): never more than the site took.
   */
  ttfbMs: number;
  totalMs: number;
  /** The pinned address the connection went to. */
  remoteAddress: string;
}

/** An absolute http(s) URL without credentials or fragment, or an OutboundError. */
export function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('other', `invalid URL: ${raw}`, { code: 'ERR_INVALID_URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('other', `unsupported protocol ${url.protocol}`, { code: 'ERR_UNSUPPORTED_PROTOCOL' });
  }
  if (url.username || url.password) {
    throw new OutboundError('other', 'URLs with credentials are not supported', { code: 'ERR_URL_CREDENTIALS' });
  }
  url.hash = '';
  return url;
}

export async function outboundRequest(opts: OutboundRequestOptions): Promise<OutboundResponse> {
  const started = performance.now();
  const url = parseTarget(opts.url);
  const method = opts.method ?? 'GET';
  if (!(opts.timeoutMs > 0)) throw new TypeError('timeoutMs must be positive');
  if (!(opts.maxBodyBytes >= 0)) throw new TypeError('maxBodyBytes must be >= 0');
  const headers = requestHeaders(opts);

  const deadline = new Deadline(opts.timeoutMs);
  const state: ExchangeState = { deadline, timeoutMs: opts.timeoutMs, phase: 'dns', host: url.hostname };
  let stalledUntilHeaders: (() => number) | null = measureStalls();
  try {
    const resolved = await deadline.race(resolveAllowed(url.hostname, opts.allow, { lookup: opts.lookup }));
    state.address = resolved.address;
    state.phase = 'headers';

    const pinned = agentFor(resolved.address, resolved.family, opts.allowInvalidTls === true);
    const res = await pinned.agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      body: method === 'POST' ? opts.body : undefined,
      signal: deadline.controller.signal,
      // undici's own timers as a backstop; the Deadline is the one that normally fires.
      headersTimeout: opts.timeoutMs + 1_000,
      bodyTimeout: opts.timeoutMs + 1_000,
    });
    const ttfbMs = Math.max(0, performance.now() - started - stalledUntilHeaders());
    stalledUntilHeaders = null;
    state.phase = 'body';
    const { body, truncated } = await readCapped(res.body, opts.maxBodyBytes);

    const outHeaders: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) outHeaders[k] = v;
    return {
      url: url.href,
      status: res.statusCode,
      headers: outHeaders,
      body,
      truncated,
      ttfbMs: Math.round(ttfbMs * 10) / 10,
      totalMs: Math.round((performance.now() - started) * 10) / 10,
      remoteAddress: resolved.address,
    };
  } catch (err) {
    throw wrapError(err, state);
  } finally {
    stalledUntilHeaders?.();
    deadline.clear();
  }
}

/** The caller's headers in lower case, with our User-Agent unless the caller names one. */
function requestHeaders(opts: OutboundRequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    const lower = name.toLowerCase();
    // Host is always the URL's host: a caller-chosen Host would break the pinning/SNI guarantee.
    if (lower === 'host') throw new TypeError('the host header cannot be set; it follows the URL');
    headers[lower] = value;
  }
  headers['user-agent'] = opts.userAgent ?? headers['user-agent'] ?? DEFAULT_USER_AGENT;
  return headers;
}

/** Reads at most `maxBytes` of the body; past that the stream is destroyed, so the rest is never downloaded. */
async function readCapped(
  stream: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const room = maxBytes - size;
    if (chunk.length > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      size += room;
      truncated = true;
      break; // leaving the loop destroys the stream
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated) stream.destroy();
  return { body: Buffer.concat(chunks, size), truncated };
}
