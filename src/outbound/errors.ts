/**
 * Error classes of outbound HTTP. `kind` is the error class the webhook delivery log records
 * (timeout, DNS, connect, TLS, blocked address) and what the crawler maps to audit failure codes.
 */

export type OutboundErrorKind = 'timeout' | 'dns' | 'connect' | 'tls' | 'blocked_address' | 'other';

/** One response seen while following redirects by hand. */
export interface RedirectHop {
  url: string;
  status: number;
  /** Raw Location header of a 3xx, when present. */
  location?: string;
}

export class OutboundError extends Error {
  readonly kind: OutboundErrorKind;
  /** Machine code of the underlying failure when known (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED…). */
  readonly code?: string;
  /** Set by followRedirects: the hops answered before this error. */
  redirectChain?: RedirectHop[];

  constructor(kind: OutboundErrorKind, message: string, opts: { code?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'OutboundError';
    this.kind = kind;
    this.code = opts.code;
  }
}

/**
 * The host resolved only to addresses the outbound policy refuses. Nothing was sent. The message
 * names no address, as it may reach a client (a delivery log, an audit failure); the addresses
 * and rules are in `refused` and `detail`, for the server log.
 */
export class OutboundBlockedError extends OutboundError {
  constructor(
    readonly host: string,
    /** Each refused address with the policy's reason. */
    readonly refused: ReadonlyArray<{ address: string; reason: string }>,
  ) {
    super('blocked_address', `${host} resolves to an address that may not be contacted`, { code: 'BLOCKED_ADDRESS' });
    this.name = 'OutboundBlockedError';
  }

  /** Every refused address with its rule, e.g. "10.0.0.5 (private network address (RFC 1918) (10.0.0.0/8))". */
  get detail(): string {
    return this.refused.map((r) => `${r.address} (${r.reason})`).join(', ');
  }
}

/** The name did not resolve (NXDOMAIN, no data, resolver failure…). */
export class DnsResolutionError extends OutboundError {
  constructor(
    readonly host: string,
    code: string,
    cause?: unknown,
  ) {
    super('dns', `DNS lookup of ${host} failed (${code})`, { code, cause });
    this.name = 'DnsResolutionError';
  }
}

/** The overall deadline (DNS + connect + headers + body) passed. */
export class OutboundTimeoutError extends OutboundError {
  constructor(
    readonly timeoutMs: number,
    /** 'headers' covers connecting, TLS and waiting for the response head. */
    readonly phase: 'dns' | 'headers' | 'body',
  ) {
    super('timeout', `no complete response within ${timeoutMs} ms (timed out during ${phase})`, { code: 'ETIMEDOUT' });
    this.name = 'OutboundTimeoutError';
  }
}

/** TCP-level failure: refused, reset, unreachable, closed before a response. */
export class OutboundConnectError extends OutboundError {
  constructor(message: string, code: string | undefined, cause?: unknown) {
    super('connect', message, { code, cause });
    this.name = 'OutboundConnectError';
  }
}

/** TLS handshake or certificate verification failed. */
export class OutboundTlsError extends OutboundError {
  constructor(message: string, code: string | undefined, cause?: unknown) {
    super('tls', message, { code, cause });
    this.name = 'OutboundTlsError';
  }
}

/** Redirect following gave up (loop, too many hops, unusable Location). */
export class RedirectError extends OutboundError {
  constructor(
    readonly reason: 'loop' | 'too_many_redirects' | 'invalid_location',
    message: string,
    chain: RedirectHop[],
  ) {
    super('other', message, { code: reason.toUpperCase() });
    this.name = 'RedirectError';
    this.redirectChain = chain;
  }
}

const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EAI_NODATA',
  'ENODATA',
  'ESERVFAIL',
  'ENOTIMP',
  'EREFUSED',
  'EBADNAME',
  'ETIMEOUT',
]);
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'EADDRNOTAVAIL',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
// OpenSSL verify errors come through as their X509_V_ERR names without the prefix.
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|INVALID_CA$|PATH_LENGTH_EXCEEDED$|INVALID_PURPOSE$|ERR_OSSL_)/;

/**
 * Error class for logs: accepts our own errors and raw Node/undici errors alike (walking
 * `cause`), so callers never need to know undici's error zoo.
 */
export function classifyOutboundError(err: unknown): OutboundErrorKind {
  // At most 5 levels: a cause chain may be cyclic.
  for (let e: unknown = err, depth = 0; e != null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundError) return e.kind;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (TIMEOUT_CODES.has(code)) return 'timeout';
      if (DNS_CODES.has(code)) return 'dns';
      if (TLS_CODE.test(code)) return 'tls';
      if (CONNECT_CODES.has(code)) return 'connect';
    }
    if ((e as { library?: unknown }).library === 'SSL routines') return 'tls';
    if ((e as { name?: unknown }).name === 'TimeoutError') return 'timeout';
  }
  return 'other';
}
