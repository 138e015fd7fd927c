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
