/**
 * SSRF policy: which IP addresses the service may open connections to (crawler and webhooks).
 *
 * Decided on addresses, not names: callers resolve first (resolve.ts) and then connect to the
 * very address that was checked (client.ts). Everything that is not plain public unicast is
 * blocked unless the operator exempts it with OUTBOUND_ALLOW_CIDRS (README.md "Environment").
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

export interface CidrEntry {
  /** As the operator wrote it, for logs. */
  readonly text: string;
  /** IPv4-mapped IPv6 entries (::ffff:a.b.c.d/104) are stored as their IPv4 range. */
  readonly range: readonly [IPv4, number] | readonly [IPv6, number];
}
export type CidrList = readonly CidrEntry[];

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Parses a comma-separated CIDR list such as OUTBOUND_ALLOW_CIDRS ("127.0.0.0/8, ::1/128").
 * A bare address means just that address. Throws on a malformed entry: a typo in a security
 * setting must stop the process at start-up, not be silently ignored.
 */
export function parseCidrList(csv: string | undefined): CidrList {
  if (csv === undefined) return [];
  const out: CidrEntry[] = [];
  for (const raw of csv.split(',')) {
    const text = raw.trim();
    if (text === '') continue;
    out.push({ text, range: parseCidr(text) });
  }
  return out;
}

/** A setting that holds a CIDR list, parsed once when the configuration loads; empty when unset or blank. */
export function parseCidrSetting(name: string, raw: string | undefined): CidrList {
  try {
    return parseCidrList(raw);
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}`);
  }
}

// A prefix length is plain decimal without leading zeros: "8x", "08", "+8", "8.0", "0x8" and "1e1"
// are typos, not lengths.
const PREFIX_LENGTH = /^(?:0|[1-9]\d{0,2})$/;

/**
 * One CIDR ("10.0.0.0/8", "2001:db8::/32") or bare address, strictly: canonical IPv4 (no "127.1",
 * octal or hex), IPv6 without zone id, decimal prefix length within the family's bits. An
 * IPv4-mapped range (::ffff:a.b.c.d/96 or longer) is returned as the IPv4 range it means; a
 * shorter one would silently cover every IPv4 address, so it is refused.
 */
export function parseCidr(text: string): [IPv4, number] | [IPv6, number] {
  const slash = text.indexOf('/');
  const addrText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const family = addrText.includes('%') ? 0 : isIP(addrText); // strict: no "127.1", octal, zone ids
  if (family === 0) throw new Error(`invalid CIDR "${text}" in allow list: not an IP address`);
  const maxBits = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !PREFIX_LENGTH.test(prefixText)) {
    throw new Error(`invalid CIDR "${text}" in allow list: bad prefix length`);
  }
  const bits = prefixText === undefined ? maxBits : Number(prefixText);
  if (bits > maxBits) throw new Error(`invalid CIDR "${text}" in allow list: prefix longer than ${maxBits}`);
  if (family === 4) return [ipaddr.IPv4.parse(addrText), bits];
  const v6 = parseV6(addrText);
  if (v6.isIPv4MappedAddress()) {
    // "::ffff:127.0.0.0/104" means the same hosts as "127.0.0.0/8".
    if (bits >= 96) return [v6.toIPv4Address(), bits - 96];
    throw new Error(
      `invalid CIDR "${text}" in allow list: an IPv4-mapped range must be /96 or longer; write the IPv4 range`,
    );
  }
  return [v6, bits];
}

/**
 * ipaddr.js reads "::127.0.0.1" (IPv4-compatible) as "::ffff:127.0.0.1" (IPv4-mapped), so a
 * dotted IPv4 tail is turned into two hex groups first. Input is already validated by net.isIP.
 */
function parseV6(text: string): IPv6 {
  const hex = text.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)(?=%|$)/,
    (_m, a: string, b: string, c: string, d: string) =>
      `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`,
  );
  return ipaddr.IPv6.parse(hex);
}

interface BlockRule<T> {
  cidr: string;
  what: string;
  range: [T, number];
}
function rules<T>(parse: (s: string) => [T, number], list: Array<[string, string]>): BlockRule<T>[] {
  return list.map(([cidr, what]) => ({ cidr, what, range: parse(cidr) }));
}

// IANA IPv4 Special-Purpose Address Registry, minus the globally reachable anycast entries.
// First match wins, so the more specific entries come first.
const V4_BLOCKED = rules(
  (s) => ipaddr.IPv4.parseCIDR(s),
  [
    ['0.0.0.0/8', 'unspecified ("this network") address'],
    ['10.0.0.0/8', 'private network address (RFC 1918)'],
    ['100.64.0.0/10', 'carrier-grade NAT address (RFC 6598)'],
    ['127.0.0.0/8', 'loopback address'],
    ['169.254.169.254/32', 'cloud metadata endpoint'],
    ['169.254.0.0/16', 'link-local address'],
    ['172.16.0.0/12', 'private network address (RFC 1918)'],
    ['192.0.0.0/24', 'IETF protocol assignment (reserved)'],
    ['192.0.2.0/24', 'documentation address (TEST-NET-1)'],
    ['192.88.99.0/24', 'deprecated 6to4 relay anycast address'],
    ['192.168.0.0/16', 'private network address (RFC 1918)'],
    ['198.18.0.0/15', 'benchmarking address (RFC 2544)'],
    ['198.51.100.0/24', 'documentation address (TEST-NET-2)'],
    ['203.0.113.0/24', 'documentation address (TEST-NET-3)'],
    ['224.0.0.0/4', 'multicast address'],
    ['255.255.255.255/32', 'broadcast address'],
    ['240.0.0.0/4', 'reserved address'],
  ],
);

// IPv6 ranges that are blocked outright. Forms that embed an IPv4 address are judged by that
// address instead (see embeddedIPv4), and anything outside 2000::/3 is blocked afterwards.
const V6_BLOCKED = rules(
  (s) => ipaddr.IPv6.parseCIDR(s),
  [
    // (no dotted forms here)
    ['::/128', 'unspecified address'],
    ['::1/128', 'loopback address'],
    ['64:ff9b:1::/48', 'local-use NAT64 address (RFC 8215)'],
    ['100::/64', 'discard-only address (RFC 6666)'],
    ['2001::/23', 'IETF protocol assignment (Teredo, benchmarking, ORCHID…)'],
    ['2001:db8::/32', 'documentation address'],
    ['3fff::/20', 'documentation address (RFC 9637)'],
    ['5f00::/16', 'SRv6 segment identifier (RFC 9602)'],
    ['fc00::/7', 'unique local address'],
    ['fe80::/10', 'link-local address'],
    ['fec0::/10', 'deprecated site-local address'],
    ['ff00::/8', 'multicast address'],
  ],
);
const V6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** IPv6 forms that carry an IPv4 address, and where it sits (index of its first 16-bit part). */
function embeddedIPv4(addr: IPv6): { form: string; v4: IPv4 } | null {
  const p = addr.parts;
  const zero = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  const v4At = (i: number) => new ipaddr.IPv4([p[i] >> 8, p[i] & 0xff, p[i + 1] >> 8, p[i + 1] & 0xff]);
  if (zero(0, 5) && p[5] === 0xffff) return { form: 'IPv4-mapped', v4: v4At(6) };
  if (zero(0, 4) && p[4] === 0xffff && p[5] === 0) return { form: 'IPv4-translated', v4: v4At(6) };
  if (zero(0, 6)) return { form: 'IPv4-compatible', v4: v4At(6) };
  if (p[0] === 0x64 && p[1] === 0xff9b && zero(2, 6)) return { form: 'NAT64', v4: v4At(6) };
  if (p[0] === 0x2002) return { form: '6to4', v4: v4At(1) };
  return null;
}

/** Whether a parsed address lies in one of the list's ranges of its own family. */
export function isAddressInList(addr: IPv4 | IPv6, allow: CidrList): boolean {
  return allow.some(({ range }) => addr.kind() === range[0].kind() && addr.match(range as [IPv4 | IPv6, number]));
}

function v4BlockReason(v4: IPv4): string | null {
  const rule = V4_BLOCKED.find((r) => v4.match(r.range));
  return rule ? `${rule.what} (${rule.cidr})` : null;
}

function judgeIPv4(v4: IPv4, allow: CidrList, form?: string): AddressVerdict {
  if (isAddressInList(v4, allow)) return { allowed: true };
  const reason = v4BlockReason(v4);
  if (reason === null) return { allowed: true };
  return { allowed: false, reason: form ? `${form} form of ${v4.toString()}: ${reason}` : reason };
}

/**
 * May the service connect to `ip`? Accepts canonical IPv4/IPv6 text, IPv6 optionally in
 * brackets. Anything that does not parse strictly is refused.
 */
export function isAddressAllowed(ip: string, allow: CidrList): AddressVerdict {
  const bracketed = ip.startsWith('[') && ip.endsWith(']');
  const text = bracketed ? ip.slice(1, -1) : ip;
  const family = isIP(text);
  if (family === 0 || (bracketed && family !== 6))
    return { allowed: false, reason: `"${ip}" is not a valid IP address` };

  if (family === 4) return judgeIPv4(ipaddr.IPv4.parse(text), allow);

  const v6 = parseV6(text);
  // A zone id picks an interface, which no public destination needs; the allow list cannot lift it.
  if (v6.zoneId !== undefined) return { allowed: false, reason: 'scoped (zone id) address' };
  const embedded = embeddedIPv4(v6);
  // An IPv4-mapped address is the IPv4 host itself (dual-stack sockets connect to it), so it is
  // judged exactly as that IPv4 address: IPv6 allow-list entries never cover it.
  if (embedded?.form === 'IPv4-mapped') return judgeIPv4(embedded.v4, allow, embedded.form);
  if (isAddressInList(v6, allow)) return { allowed: true };

  for (const rule of V6_BLOCKED) {
    if (v6.match(rule.range)) return { allowed: false, reason: `${rule.what} (${rule.cidr})` };
  }
  if (embedded) {
    // Tunnel and translation forms inherit the blocks of the IPv4 address they carry.
    const reason = v4BlockReason(embedded.v4);
    if (reason) return { allowed: false, reason: `${embedded.form} form of ${embedded.v4.toString()}: ${reason}` };
    return { allowed: true };
  }
  if (!v6.match(V6_GLOBAL_UNICAST)) {
    return { allowed: false, reason: 'reserved address (outside global unicast 2000::/3)' };
  }
  return { allowed: true };
}
