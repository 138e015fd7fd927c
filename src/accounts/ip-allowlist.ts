import { isIP } from 'node:net';
import { isAddressInList, parseCidr, parseCidrList } from '../outbound/policy';

/**
 * Parses a key's allowlist with the same strict rules as OUTBOUND_ALLOW_CIDRS (no "127.1",
 * "10.0.0.0/8x" or short IPv4-mapped ranges) and returns each entry as canonical "address/bits",
 * an IPv4-mapped entry as the IPv4 range it means. Throws naming the first bad entry.
 */
export function parseAllowlist(entries: string[]): string[] {
  return entries.map((entry) => {
    const [address, bits] = parseCidr(entry.trim());
    return `${address.toString()}/${bits}`;
  });
}

/**
 * Whether a client address falls inside one of the ranges; an IPv4-mapped client (::ffff:a.b.c.d
 * from a dual-stack socket) is the IPv4 client it carries. Anything that is not a plain address
 * is refused, and so is every client when a stored entry no longer parses: fail closed.
 */
export function ipAllowed(clientIp: string, allowlist: readonly string[]): boolean {
  if (isIP(clientIp) === 0) return false;
  try {
    const [client] = parseCidr(clientIp);
    return isAddressInList(client, parseCidrList(allowlist.join(',')));
  } catch {
    return false;
  }
}
