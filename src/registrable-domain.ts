/**
 * "Same site" for the whole service (README "Tiers and limits", "Live audits"): the crawl scope,
 * the analyzers' own-site checks and the first-free-audit rule all use this one rule.
 *
 * A host's site is its registrable domain (eTLD+1) per the Public Suffix List with the private
 * section counted, so `a.github.io` and `b.github.io` are two sites while `www.example.com` and
 * `blog.example.com` are one. An IP literal is its own site, in canonical form. Pure: no I/O.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { getDomain } from 'tldts';

/** The registrable domain of a host name, or the canonical address of an IP literal. */
export function registrableDomain(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  const address = canonicalAddress(name);
  if (address !== null) return address;
  const ascii = domainToASCII(name) || name;
  // A host that is itself a public suffix (e.g. github.io) has no eTLD+1: it is its own site.
  return getDomain(ascii, { allowPrivateDomains: true, extractHostname: false }) ?? ascii;
}

/** The site of an absolute URL or origin, or null when it does not parse. */
export function siteOfUrl(url: string): string | null {
  try {
    return registrableDomain(new URL(url).hostname);
  } catch {
    return null;
  }
}

/**
 * IPv4 as a dotted quad, IPv6 compressed and lower-case in brackets (as URL.hostname writes it);
 * an IPv4-mapped IPv6 address is the IPv4 host it maps. Null for anything that is not an IP literal.
 */
function canonicalAddress(host: string): string | null {
  const inner = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const version = isIP(inner);
  if (version === 4) return inner;
  if (version !== 6) return null;
  const compressed = new URL(`http://[${inner}]`).hostname;
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(compressed);
  if (!mapped) return compressed;
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
