/**
 * The one outbound HTTP client shared by the crawler, the analyzers and the webhook sender.
 *
 * Safety properties, each enforced here so no caller can forget them:
 * - the host is resolved once (resolveAllowed) and the socket is pinned to that checked address
 *   through the connector's `lookup`, so DNS rebinding between check and connect is impossible,
 *   while SNI, certificate name checks and the Host header still use the real host name;
 * - redirects are never followed implicitly: followRedirects() does it hop by hop, and every hop
 *   goes through the policy again;
 * - one deadline covers DNS, connect, headers and body; bodies are capped at maxBodyBytes.
 */
import { performance } from 'node:perf_hooks';
import { TLSSocket, type PeerCertificate } from 'node:tls';
import type { LookupAddress as NodeLookupAddress, LookupOneOptions } from 'node:dns';
import { Agent, buildConnector } from 'undici';
import type { CidrList } from './policy';
import { resolveAllowed, type LookupAllFn } from './resolve';
import {
  DnsResolutionError,
  OutboundConnectError,
  OutboundError,
  OutboundTimeoutError,
  OutboundTlsError,
  RedirectError,
  classifyOutboundError,
  type RedirectHop,
} from './errors';

export * from './errors';

/** Honest default User-Agent naming the bot (ANALYZERS.md "Crawl rules"). */
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

export interface TlsCertFacts {
  subject: string;
  issuer: string;
  subjectAltNames: string[];
  validFrom: string; // RFC 3339
  validTo: string; // RFC 3339
  bits?: number;
  keyType?: 'RSA' | 'EC' | 'other';
  serialNumber: string;
  fingerprint256: string;
}

export interface TlsFacts {
  protocol: string; // 'TLSv1.3', 'TLSv1.2', …
  authorized: boolean;
  authorizationError?: string; // e.g. DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID
  cert?: TlsCertFacts;
}

export interface OutboundResponse {
  url: string;
  status: number;
  /** Lower-case names; repeated headers such as set-cookie are arrays. */
  headers: Record<string, string | string[]>;
  body: Buffer;
  truncated: boolean;
  /** From the call until response headers (includes DNS, connect, TLS on a fresh connection). */
  ttfbMs: number;
  totalMs: number;
  /** The pinned address the connection went to. */
  remoteAddress: string;
  tls?: TlsFacts;
}

// ---------------------------------------------------------------------------------------------
// Pinned agents.
//
// One undici Agent per (checked address, TLS strictness), kept in a small LRU. Reusing them keeps
// keep-alive connections and TLS sessions across requests, which matters for the crawler (hundreds
// of pages on one host). Measured on loopback, 300 sequential GETs: https 0.6 ms/req with the
// cached Agent vs 3.7 ms/req with a fresh Agent per request (new TCP+TLS handshake each time);
// http 0.7 vs 1.2 ms/req. Over a real network each handshake costs extra round trips on top. Pinning still holds because the Agent's `lookup` can only ever return
// the address it was created for, and the key is that address. Strict and lax (allowInvalidTls)
// agents never share connections or TLS session caches.
// ---------------------------------------------------------------------------------------------

const MAX_AGENTS = 64;
const AGENT_CONNECT_TIMEOUT_MS = 30_000; // upper bound only; each request's deadline is shorter
// Crawl rules: 2–4 requests in flight per host; leave headroom for webhooks to the same origin.
const CONNECTIONS_PER_ORIGIN = 8;

interface PinnedAgent {
  agent: Agent;
  /** TLS facts of the latest connection per origin (host:port) made by this agent. */
  tlsByOrigin: Map<string, TlsFacts>;
}

const agents = new Map<string, PinnedAgent>(); // Map order doubles as LRU order

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | NodeLookupAddress[], family?: number) => void;

/** A `lookup` for net/tls.connect that can only answer the pre-checked address. */
function pinnedLookup(address: string, family: 4 | 6) {
  return (_hostname: string, options: LookupOneOptions | LookupCallback, callback?: LookupCallback): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const all = typeof options === 'object' && (options as { all?: boolean }).all === true;
    // Node ≥ 20 asks with all: true (happy eyeballs); older call sites use the one-address form.
    process.nextTick(() => (all ? cb(null, [{ address, family }]) : cb(null, address, family)));
  };
}

/** undici hands the connector IPv6 hosts without brackets and '' for the default port. */
function originKey(hostname: string, port: string | number): string {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return `${host}:${port === '' ? 443 : port}`;
}

function createPinnedAgent(address: string, family: 4 | 6, lax: boolean): PinnedAgent {
  const tlsByOrigin = new Map<string, TlsFacts>();
  const base = buildConnector({
    lookup: pinnedLookup(address, family),
    rejectUnauthorized: !lax,
    timeout: AGENT_CONNECT_TIMEOUT_MS,
  } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (opts, callback) => {
    base(opts, (err, socket) => {
      if (socket instanceof TLSSocket) {
        tlsByOrigin.set(originKey(opts.hostname, opts.port), tlsFactsOf(socket));
        if (tlsByOrigin.size > 256) tlsByOrigin.delete(tlsByOrigin.keys().next().value as string);
      }
      if (err) callback(err, null);
      else callback(null, socket as NonNullable<typeof socket>);
    });
  };
  const agent = new Agent({
    connect,
    connections: CONNECTIONS_PER_ORIGIN,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 15_000,
  });
  return { agent, tlsByOrigin };
}

function agentFor(address: string, family: 4 | 6, lax: boolean): PinnedAgent {
  const key = `${lax ? 'lax' : 'strict'}|${address}`;
  const hit = agents.get(key);
  if (hit) {
    agents.delete(key);
    agents.set(key, hit);
    return hit;
  }
  const created = createPinnedAgent(address, family, lax);
  agents.set(key, created);
  if (agents.size > MAX_AGENTS) {
    const [oldKey, old] = agents.entries().next().value as [string, PinnedAgent];
    agents.delete(oldKey);
    void old.agent.close().catch(() => undefined); // graceful: in-flight requests finish
  }
  return created;
}

/** Closes every cached connection (process shutdown, tests). */
export async function closeOutboundAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.agent.close().catch(() => undefined)));
}

// ---------------------------------------------------------------------------------------------

function formatDn(dn: Record<string, string | string[]> | undefined): string {
  if (!dn) return '';
  return Object.entries(dn)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
    .join(', ');
}

function tlsFactsOf(socket: TLSSocket): TlsFacts {
  const facts: TlsFacts = { protocol: socket.getProtocol() ?? 'unknown', authorized: socket.authorized };
  const authErr = socket.authorizationError as unknown;
  if (authErr) {
    facts.authorizationError =
      typeof authErr === 'string' ? authErr : String((authErr as { code?: string; message?: string }).code ?? (authErr as Error).message);
  }
  const cert = socket.getPeerCertificate(false) as PeerCertificate & { asn1Curve?: string; modulus?: string };
  if (cert && Object.keys(cert).length > 0) {
    facts.cert = {
      subject: formatDn(cert.subject as unknown as Record<string, string>),
      issuer: formatDn(cert.issuer as unknown as Record<string, string>),
      subjectAltNames: cert.subjectaltname ? cert.subjectaltname.split(', ') : [],
      validFrom: new Date(cert.valid_from).toISOString(),
      validTo: new Date(cert.valid_to).toISOString(),
      serialNumber: cert.serialNumber,
      fingerprint256: cert.fingerprint256,
      keyType: cert.modulus ? 'RSA' : cert.asn1Curve ? 'EC' : 'other',
    };
    if (typeof cert.bits === 'number') facts.cert.bits = cert.bits;
  }
  return facts;
}

type Phase = 'dns' | 'headers' | 'body';

/** One timer for the whole exchange; abort() tears down whatever is in progress. */
class Deadline {
  readonly controller = new AbortController();
  expired = false;
  private readonly timer: NodeJS.Timeout;
  private readonly expiredPromise: Promise<never>;

  constructor(ms: number) {
    let rejectFn: (e: Error) => void = () => undefined;
    this.expiredPromise = new Promise<never>((_, reject) => (rejectFn = reject));
    this.expiredPromise.catch(() => undefined); // only observed through race()
    this.timer = setTimeout(() => {
      this.expired = true;
      const reason = new Error('outbound deadline');
      rejectFn(reason);
      this.controller.abort(reason);
    }, ms);
  }
  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.expiredPromise]);
  }
  clear(): void {
    clearTimeout(this.timer);
  }
}

function codeOf(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e != null && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function wrapError(err: unknown, ctx: { deadline: Deadline; timeoutMs: number; phase: Phase; host: string; address?: string }): OutboundError {
  if (err instanceof OutboundError) return err;
  if (ctx.deadline.expired) return new OutboundTimeoutError(ctx.timeoutMs, ctx.phase);
  const code = codeOf(err);
  const detail = err instanceof Error ? err.message : String(err);
  const where = ctx.address ? `${ctx.host} (${ctx.address})` : ctx.host;
  switch (classifyOutboundError(err)) {
    case 'timeout':
      return new OutboundTimeoutError(ctx.timeoutMs, ctx.phase);
    case 'tls':
      return new OutboundTlsError(`TLS error with ${where}: ${detail}`, code, err);
    case 'connect':
      return new OutboundConnectError(`connection to ${where} failed: ${detail}`, code, err);
    case 'dns':
      return new DnsResolutionError(ctx.host, code ?? 'EUNKNOWN', err);
    default:
      return new OutboundError('other', `request to ${where} failed: ${detail}`, { code, cause: err });
  }
}

function parseTarget(raw: string): URL {
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

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    const lower = name.toLowerCase();
    // Host is always the URL's host: a caller-chosen Host would break the pinning/SNI guarantee.
    if (lower === 'host') throw new TypeError('the host header cannot be set; it follows the URL');
    headers[lower] = value;
  }
  headers['user-agent'] = opts.userAgent ?? headers['user-agent'] ?? DEFAULT_USER_AGENT;

  const deadline = new Deadline(opts.timeoutMs);
  const ctx: { deadline: Deadline; timeoutMs: number; phase: Phase; host: string; address?: string } = {
    deadline,
    timeoutMs: opts.timeoutMs,
    phase: 'dns',
    host: url.hostname,
  };
  try {
    const resolved = await deadline.race(resolveAllowed(url.hostname, opts.allow, { lookup: opts.lookup }));
    ctx.address = resolved.address;
    ctx.phase = 'headers';

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
    const ttfbMs = performance.now() - started;
    ctx.phase = 'body';

    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      const room = opts.maxBodyBytes - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size += room;
        truncated = true;
        break; // leaving the loop destroys the stream: the rest is never downloaded
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    if (truncated) res.body.destroy();

    const outHeaders: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) outHeaders[k] = v;

    const response: OutboundResponse = {
      url: url.href,
      status: res.statusCode,
      headers: outHeaders,
      body: Buffer.concat(chunks, size),
      truncated,
      ttfbMs: Math.round(ttfbMs * 10) / 10,
      totalMs: Math.round((performance.now() - started) * 10) / 10,
      remoteAddress: resolved.address,
    };
    if (url.protocol === 'https:') {
      const tls = pinned.tlsByOrigin.get(originKey(url.hostname, url.port));
      if (tls) response.tls = tls;
    }
    return response;
  } catch (err) {
    throw wrapError(err, ctx);
  } finally {
    deadline.clear();
  }
}

// ---------------------------------------------------------------------------------------------
// Redirects, by hand.
// ---------------------------------------------------------------------------------------------

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
      throw new RedirectError('invalid_location', `redirect to unsupported protocol ${next.protocol} from ${res.url}`, chain);
    }
    next.hash = '';
    if (seen.has(next.href)) throw new RedirectError('loop', `redirect loop: ${res.url} leads back to ${next.href}`, chain);
    if (chain.length > maxRedirects) {
      throw new RedirectError('too_many_redirects', `more than ${maxRedirects} redirects starting at ${chain[0].url}`, chain);
    }

    const headers = { ...current.headers };
    // Never leak credentials to another origin.
    if (next.origin !== new URL(res.url).origin) for (const h of Object.keys(headers)) if (CREDENTIAL_HEADERS.includes(h.toLowerCase())) delete headers[h];
    // 303 always, and 301/302 after POST (as browsers do), become a body-less GET.
    let method = current.method ?? 'GET';
    let body = current.body;
    if ((res.status === 303 && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      for (const h of Object.keys(headers)) if (/^content-/i.test(h)) delete headers[h];
    }
    current = { ...current, url: next.href, method, body, headers };
  }
}
