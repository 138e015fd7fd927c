import ipaddr from 'ipaddr.js';

/** Parses a CIDR list for a key's allowlist; throws with the offending entry. */
export function parseAllowlist(entries: string[]): string[] {
  return entries.map((entry) => {
    const trimmed = entry.trim();
    try {
      const [address, bits] = trimmed.includes('/') ? ipaddr.parseCIDR(trimmed) : [ipaddr.parse(trimmed), undefined];
      const prefix = bits ?? (address.kind() === 'ipv4' ? 32 : 128);
      return `${address.toString()}/${prefix}`;
    } catch {
      throw new Error(`"${trimmed}" is not an IP address or CIDR range`);
    }
  });
}

/** Whether a client address (IPv4-mapped IPv6 included) falls inside one of the ranges. */
export function ipAllowed(clientIp: string, allowlist: readonly string[]): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(clientIp);
  } catch {
    return false;
  }
  return allowlist.some((cidr) => {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return range.kind() === address.kind() && address.match(range, bits);
  });
}
