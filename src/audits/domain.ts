/**
 * Normalizes the `domain` a customer submits (README.md "Run an audit with curl").
 *
 * We parse by hand instead of trusting `new URL()`: the WHATWG parser "repairs" input
 * (`https:example.com`, `https://a.com\path`, `http://2130706433`, `010.0.0.1` as octal,
 * percent-decoding in hosts, stripped whitespace), so a user could get an audit of something
 * other than what they wrote. Everything we accept is re-checked against `new URL()` at the end.
 *
 * Syntax only: whether the host may be contacted is the outbound policy's call (src/outbound).
 */
import { isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import punycode from 'punycode/';

export type InvalidDomainReason =
  | 'not_a_string'
  | 'empty'
  | 'too_long'
  | 'whitespace'
  | 'invalid_character'
  | 'missing_protocol'
  | 'unsupported_protocol'
  | 'credentials'
  | 'path'
  | 'query'
  | 'fragment'
  | 'missing_host'
  | 'invalid_host'
  | 'invalid_port';

/** A customer-facing validation error (`400 invalid_domain`); `message` is shown verbatim. */
export class InvalidDomainError extends Error {
  readonly code = 'invalid_domain' as const;
  constructor(
    /** Machine-readable kind of problem, for tests and logs; the message is for humans. */
    readonly reason: InvalidDomainReason,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidDomainError';
  }
}

export interface NormalizedDomain {
  /** `https://example.com`, `http://example.com:8080`, `http://[2001:db8::1]` */
  origin: string;
  /** Lower-case ASCII (punycode) host; IPv6 literals keep their brackets, as URL.hostname does. */
  host: string;
  protocol: 'http:' | 'https:';
  /** Explicit non-default port, else null. */
  port: number | null;
}

/** Generous bound: a valid origin is under 300 characters; this only stops silly inputs early. */
export const MAX_DOMAIN_INPUT_LENGTH = 2048;
const MAX_HOST_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
const EXAMPLE = 'use https://example.com';

function fail(reason: InvalidDomainReason, message: string): never {
  throw new InvalidDomainError(reason, message);
}

export function normalizeDomain(input: unknown): NormalizedDomain {
  if (typeof input !== 'string') fail('not_a_string', 'domain must be a string');
  if (input.length === 0) fail('empty', 'domain is empty');
  if (input.length > MAX_DOMAIN_INPUT_LENGTH) {
    fail('too_long', `domain is too long: at most ${MAX_DOMAIN_INPUT_LENGTH} characters`);
  }
  // WHATWG silently strips leading/trailing spaces and tabs/newlines anywhere; we refuse instead.
  if (/\s/u.test(input)) fail('whitespace', 'domain must not contain spaces or other whitespace');
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(input)) {
    fail('invalid_character', 'domain must not contain control characters');
  }
  // WHATWG treats "\" as "/" in http(s) URLs: "https://a.com\@b.com" would otherwise be a trap.
  if (input.includes('\\')) fail('invalid_character', 'domain must not contain a backslash (\\)');

  const { protocol, rest } = splitScheme(input);

  // Authority runs up to the first "/", "?" or "#" (backslash already refused).
  const authEnd = rest.search(/[/?#]/);
  const authority = authEnd === -1 ? rest : rest.slice(0, authEnd);
  const tail = authEnd === -1 ? '' : rest.slice(authEnd);

  if (authority.includes('@')) {
    fail('credentials', 'domain must not contain credentials (user:password@)');
  }
  if (authority === '') fail('missing_host', `domain is missing a host: ${EXAMPLE}`);
  checkTail(tail);

  const { rawHost, portText } = splitHostPort(authority);
  const host = rawHost.startsWith('[') ? normalizeIPv6Literal(rawHost) : normalizeHostName(rawHost);
  const port = parsePort(portText, protocol);

  const origin = `${protocol}//${host}${port === null ? '' : `:${port}`}`;

  // Defence in depth: our result must be a fixed point of the WHATWG parser, so every other
  // component (crawler, fetch, undici) sees exactly this origin.
  let reparsed: URL;
  try {
    reparsed = new URL(origin);
  } catch {
    fail('invalid_host', 'host is not a valid domain name');
  }
  if (reparsed.origin !== origin) {
    fail('invalid_host', 'host is not a valid domain name');
  }
  return { origin, host, protocol, port };
}

function splitScheme(input: string): { protocol: 'http:' | 'https:'; rest: string } {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(\/\/)?/.exec(input);
  if (!m) fail('missing_protocol', `domain is missing a protocol: ${EXAMPLE}`);
  const scheme = m[1].toLowerCase();
  const hasSlashes = m[2] !== undefined;
  if (scheme === 'http' || scheme === 'https') {
    // "https:example.com" / "https:/example.com" are repaired by WHATWG; we ask for the real thing.
    if (!hasSlashes) fail('missing_protocol', `domain must start with ${scheme}:// followed by the host: ${EXAMPLE}`);
    return { protocol: scheme === 'http' ? 'http:' : 'https:', rest: input.slice(m[0].length) };
  }
  // "example.com:8080" and "localhost:3000" look like a scheme to a URL parser, but are a
  // host and port typed without a protocol.
  if (!hasSlashes && (scheme.includes('.') || /^\d/.test(input.slice(m[0].length)))) {
    fail('missing_protocol', `domain is missing a protocol: ${EXAMPLE}`);
  }
  return fail('unsupported_protocol', `unsupported protocol ${scheme}: (only http:// and https:// are supported)`);
}

/** Only "" or "/" may follow the authority. */
function checkTail(tail: string): void {
  if (tail === '' || tail === '/') return;
  const pathEnd = tail.search(/[?#]/);
  const path = pathEnd === -1 ? tail : tail.slice(0, pathEnd);
  if (path !== '' && path !== '/') {
    fail('path', 'domain must not contain a path (only an optional trailing /)');
  }
  if (tail[pathEnd] === '?') fail('query', 'domain must not contain a query string');
  fail('fragment', 'domain must not contain a fragment (#...)');
}

function splitHostPort(authority: string): { rawHost: string; portText: string | undefined } {
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close === -1) fail('invalid_host', 'host is not a valid IPv6 address: missing the closing ]');
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) {
      fail('invalid_host', 'host is not a valid IPv6 address: unexpected characters after ]');
    }
    return { rawHost: authority.slice(0, close + 1), portText: after === '' ? undefined : after.slice(1) };
  }
  const firstColon = authority.indexOf(':');
  if (firstColon === -1) return { rawHost: authority, portText: undefined };
  if (authority.indexOf(':', firstColon + 1) !== -1) {
    if (isIPv6(authority)) {
      fail('invalid_host', 'IPv6 addresses must be enclosed in brackets, e.g. http://[2001:db8::1]');
    }
    fail('invalid_host', 'host is not a valid domain name: it contains more than one ":"');
  }
  const rawHost = authority.slice(0, firstColon);
  if (rawHost === '') fail('missing_host', `domain is missing a host: ${EXAMPLE}`);
  return { rawHost, portText: authority.slice(firstColon + 1) };
}

function parsePort(portText: string | undefined, protocol: 'http:' | 'https:'): number | null {
  if (portText === undefined) return null;
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535)) fail('invalid_port', 'port must be a number from 1 to 65535');
  const defaultPort = protocol === 'https:' ? 443 : 80;
  return port === defaultPort ? null : port;
}

function normalizeIPv6Literal(bracketed: string): string {
  const inner = bracketed.slice(1, -1);
  if (inner.includes('%')) fail('invalid_host', 'host must not contain an IPv6 zone identifier (%)');
  if (!isIPv6(inner)) fail('invalid_host', 'host is not a valid IPv6 address');
  // Canonical (compressed, lower-case) form, as WHATWG serializes it.
  return new URL(`http://[${inner}]`).hostname;
}

const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/i;
const IPV4_OCTET = /^(?:0|[1-9]\d{0,2})$/;

function normalizeHostName(raw: string): string {
  const isAscii = /^[\u0000-\u007f]*$/.test(raw);
  if (isAscii) {
    const lower = raw.toLowerCase();
    const bad = /[^a-z0-9._-]/.exec(lower);
    if (bad) {
      if (bad[0] === '%') fail('invalid_host', 'host must not contain percent-encoding (%)');
      fail('invalid_host', `host is not a valid domain name: it contains "${bad[0]}"`);
    }
    const labels = lower.split('.');
    // WHATWG reads anything ending in a number as IPv4 ("127.1", "0x7f.1", "2130706433",
    // octal "010.0.0.1"); we accept only the plain dotted-quad a person means.
    if (labels.every((l) => NUMERIC_LABEL.test(l))) {
      if (labels.length === 4 && labels.every((l) => IPV4_OCTET.test(l) && Number(l) <= 255)) {
        return lower;
      }
      fail(
        'invalid_host',
        'host is not a valid IPv4 address: write it as four numbers from 0 to 255 without leading zeros, e.g. 192.0.2.1',
      );
    }
    checkDnsName(lower);
    // Existing punycode must decode ("xn--zz" does not); URL parsers no longer all check it.
    if (lower.split('.').some(invalidPunycodeLabel) || domainToASCII(lower) !== lower) {
      fail('invalid_host', 'host is not a valid domain name: it contains an invalid xn-- (punycode) label');
    }
    return lower;
  }
  // IDN: UTS #46 mapping + punycode. Returns '' for disallowed characters.
  const ascii = domainToASCII(raw);
  if (ascii === '') {
    fail('invalid_host', 'host is not a valid domain name: it contains characters not allowed in domain names');
  }
  if (ascii.split('.').every((l) => NUMERIC_LABEL.test(l))) {
    // e.g. full-width digits, which the IDN mapping would quietly turn into an IPv4 address.
    fail('invalid_host', 'host is not a valid domain name: write IP addresses with ASCII digits');
  }
  checkDnsName(ascii);
  return ascii;
}

/**
 * An `xn--` label that is not the punycode of a non-ASCII name: it does not decode, decodes to plain
 * ASCII, or does not encode back to itself.
 */
function invalidPunycodeLabel(label: string): boolean {
  if (!label.startsWith('xn--')) return false;
  try {
    const decoded = punycode.decode(label.slice(4));
    return !/[^\x00-\x7f]/.test(decoded) || punycode.encode(decoded) !== label.slice(4);
  } catch {
    return true;
  }
}

/** RFC 1035/1123 host name rules on an ASCII, lower-case name. */
function checkDnsName(name: string): void {
  const prefix = 'host is not a valid domain name';
  if (name.length > MAX_HOST_LENGTH) fail('invalid_host', `${prefix}: it is longer than ${MAX_HOST_LENGTH} characters`);
  const labels = name.split('.');
  if (labels[labels.length - 1] === '') {
    fail('invalid_host', `${prefix}: it must not end with a dot`);
  }
  if (labels.length < 2) fail('invalid_host', `${prefix}: it needs at least one dot, e.g. example.com`);
  for (const label of labels) {
    const shown = label.length > 24 ? `${label.slice(0, 24)}…` : label;
    if (label === '')
      fail('invalid_host', `${prefix}: it contains an empty label (a leading dot or two dots in a row)`);
    if (label.length > MAX_LABEL_LENGTH) {
      fail('invalid_host', `${prefix}: label "${shown}" is longer than ${MAX_LABEL_LENGTH} characters`);
    }
    if (label.includes('_')) fail('invalid_host', `${prefix}: label "${shown}" contains an underscore`);
    const bad = /[^a-z0-9-]/.exec(label);
    if (bad) fail('invalid_host', `${prefix}: label "${shown}" contains "${bad[0]}"`);
    if (label.startsWith('-') || label.endsWith('-')) {
      fail('invalid_host', `${prefix}: label "${shown}" must not start or end with a hyphen`);
    }
  }
  // ICANN top-level domains are alphabetic (or IDN "xn--"); this also keeps WHATWG from
  // reading a numeric/hex last label as IPv4.
  const tld = labels[labels.length - 1];
  if (!/^[a-z]+$/.test(tld) && !tld.startsWith('xn--')) {
    fail('invalid_host', `${prefix}: top-level domain "${tld}" must contain only letters`);
  }
}
