import { Resolver } from 'node:dns/promises';
import type { CaaRecord, MxRecord } from 'node:dns';
import type { DnsFacts } from '../analyzers/snapshot';

/**
 * The DNS provider: the facts DNS_* and EMAIL_* analyzers read, from node:dns (c-ares, the system's
 * resolvers unless the caller passes its own). A name that does not exist (NXDOMAIN → ENOTFOUND) or
 * has no record of the type (ENODATA) is an empty answer; any other failure (timeout, SERVFAIL,
 * refused) throws, so the audit reports the analyzers as `error` instead of as missing records.
 *
 * DNSSEC: node:dns can neither query DS records nor read the AD bit, so `dnssec` is null here; the
 * DNS probe fills it from its own DS query to the same resolvers (src/crawl/dnssec.ts).
 */

/** The part of dns.promises.Resolver used here (injectable in tests: never real DNS there). */
export interface DnsResolver {
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  resolveCaa(name: string): Promise<CaaRecord[]>;
  resolveMx(name: string): Promise<MxRecord[]>;
  resolveTxt(name: string): Promise<string[][]>;
}

const EMPTY_CODES = new Set(['ENOTFOUND', 'ENODATA']);

async function orEmpty<T>(query: Promise<T[]>): Promise<T[]> {
  try {
    return await query;
  } catch (err) {
    if (EMPTY_CODES.has((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}

const CAA_TAGS = ['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone'] as const;

/** `flags tag "value"`, as in a zone file. */
export function formatCaa(r: CaaRecord): string {
  for (const tag of CAA_TAGS) {
    const v = r[tag];
    if (v !== undefined) return `${r.critical} ${tag} "${v}"`;
  }
  // Unknown tags: c-ares exposes them as extra properties.
  const extra = Object.entries(r).find(([k]) => k !== 'critical');
  return extra ? `${r.critical} ${extra[0]} "${String(extra[1])}"` : `${r.critical}`;
}

/** host, its parents, down to and including the registrable domain (RFC 8659 tree climbing, bounded). */
export function caaCandidates(host: string, registrable: string): string[] {
  const h = host.replace(/\.$/, '').toLowerCase();
  const reg = registrable.replace(/\.$/, '').toLowerCase();
  if (h !== reg && !h.endsWith(`.${reg}`)) return [h, reg];
  const out: string[] = [];
  let name = h;
  for (;;) {
    out.push(name);
    if (name === reg) return out;
    name = name.slice(name.indexOf('.') + 1);
  }
}

export async function collectDnsFacts(
  host: string,
  registrable: string,
  resolver: DnsResolver = new Resolver({ timeout: 5_000, tries: 2 }),
): Promise<DnsFacts> {
  const hostName = host.replace(/\.$/, '').toLowerCase();
  const domain = registrable.replace(/\.$/, '').toLowerCase();
  const [a, aaaa, mx, txt, dmarcTxt] = await Promise.all([
    orEmpty(resolver.resolve4(hostName)),
    orEmpty(resolver.resolve6(hostName)),
    orEmpty(resolver.resolveMx(domain)),
    orEmpty(resolver.resolveTxt(domain)),
    orEmpty(resolver.resolveTxt(`_dmarc.${domain}`)),
  ]);
  let caa: string[] = [];
  let caaName: string | undefined;
  for (const name of caaCandidates(hostName, domain)) {
    const records = await orEmpty(resolver.resolveCaa(name));
    if (records.length > 0) {
      caa = records.map(formatCaa);
      caaName = name;
      break;
    }
  }
  // TXT records arrive as character-strings; a record is their concatenation (RFC 7208 §3.3).
  const joined = (records: string[][]) => records.map((chunks) => chunks.join(''));
  return {
    host: hostName,
    domain,
    a,
    aaaa,
    caa,
    ...(caaName !== undefined ? { caaName } : {}),
    dnssec: null,
    mx: mx
      .map((r) => ({ exchange: r.exchange, priority: r.priority }))
      .sort((x, y) => x.priority - y.priority || x.exchange.localeCompare(y.exchange)),
    spf: joined(txt).filter((r) => /^v=spf1(\s|$)/i.test(r.trim())),
    // Every TXT at _dmarc: the analyzers pick the v=DMARC1 ones and can quote the others.
    dmarc: joined(dmarcTxt),
  };
}
