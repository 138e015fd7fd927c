/**
 * Resolve a host once and pick an address the outbound policy allows. The caller then connects
 * to exactly that address (client.ts), so a second, different DNS answer can never be used.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { DnsResolutionError, OutboundBlockedError } from './errors';
import { isAddressAllowed, type CidrList } from './policy';

export { DnsResolutionError, OutboundBlockedError } from './errors';

export interface LookupAddress {
  address: string;
  family: number;
}
/** Same shape as `dns.promises.lookup(host, { all: true })`; injectable for tests and caching. */
export type LookupAllFn = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

const systemLookup: LookupAllFn = (hostname, options) => dns.lookup(hostname, options);

export async function resolveAllowed(
  host: string,
  allow: CidrList,
  opts: { lookup?: LookupAllFn } = {},
): Promise<ResolvedAddress> {
  const bracketed = host.startsWith('[') && host.endsWith(']');
  const bare = bracketed ? host.slice(1, -1) : host;
  // Brackets belong around a whole IPv6 literal only: "[2606:4700::11", "[127.0.0.1]" or a
  // bracket inside a name is no host at all and must not reach the resolver.
  if (/[[\]]/.test(bare) || (bracketed && isIP(bare) !== 6)) throw new DnsResolutionError(host, 'EBADNAME');

  const literal = isIP(bare);
  if (literal !== 0) {
    const verdict = isAddressAllowed(bare, allow);
    if (!verdict.allowed) throw new OutboundBlockedError(bare, [{ address: bare, reason: verdict.reason }]);
    return { address: bare, family: literal === 4 ? 4 : 6 };
  }

  let answers: LookupAddress[];
  try {
    // getaddrinfo, as every other program on the machine resolves (honours /etc/hosts).
    answers = await (opts.lookup ?? systemLookup)(bare, { all: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new DnsResolutionError(bare, typeof code === 'string' ? code : 'EUNKNOWN', err);
  }
  if (answers.length === 0) throw new DnsResolutionError(bare, 'ENODATA');

  // Resolver order is kept (RFC 6724 sorting by getaddrinfo); blocked entries are skipped, so a
  // name with one private and one public address is crawled on the public one only.
  const refused: Array<{ address: string; reason: string }> = [];
  for (const { address } of answers) {
    const verdict = isAddressAllowed(address, allow);
    if (verdict.allowed) {
      const family = isIP(address);
      return { address, family: family === 6 ? 6 : 4 };
    }
    refused.push({ address, reason: verdict.reason });
  }
  throw new OutboundBlockedError(bare, refused);
}

/**
 * A lookup that remembers names that failed to resolve, for the life of one crawl: a dead
 * third-party host then costs one look-up (and one resolver time-out) instead of one per resource.
 * Concurrent look-ups of the same name share one answer; successful answers are not kept, so every
 * request still resolves and pins afresh.
 */
export function negativeCachingLookup(lookup: LookupAllFn = systemLookup): LookupAllFn {
  const pending = new Map<string, Promise<LookupAddress[]>>();
  const failed = new Map<string, unknown>();
  return (hostname, options) => {
    const key = hostname.toLowerCase();
    if (failed.has(key)) return Promise.reject(failed.get(key));
    let answer = pending.get(key);
    if (!answer) {
      answer = lookup(hostname, options).then(
        (addresses) => {
          pending.delete(key);
          return addresses;
        },
        (error: unknown) => {
          pending.delete(key);
          failed.set(key, error);
          throw error;
        },
      );
      pending.set(key, answer);
    }
    return answer;
  };
}
