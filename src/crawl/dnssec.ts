import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { DnssecAnswer } from '../analyzers/snapshot';

/**
 * DNSSEC of the registrable domain: a DS query (RD, AD and EDNS DO set) over UDP to the resolver the
 * DNS probe uses. A DS record in the answer means the parent zone publishes a signed delegation; a
 * definite NOERROR or NXDOMAIN without one means the domain is not signed. The resolver's AD flag
 * (it validated the answer) is kept as evidence: on an answer without DS it means the parent proved
 * the delegation unsigned, so it is no pass by itself. Servers are tried in order; a timeout,
 * SERVFAIL, REFUSED or a truncated answer moves to the next, and when none gives a definite answer
 * the query throws, as the other DNS look-ups do.
 */

export interface DnssecQueryOptions {
  /** Resolver addresses as dns.getServers() writes them: `1.2.3.4`, `1.2.3.4:5353`, `::1`, `[::1]:5353`. */
  readonly servers: readonly string[];
  /** Wait for each server's answer (ms). */
  readonly timeoutMs: number;
}

/** Servers tried at most, as a resolver's configuration rarely lists more. */
const MAX_SERVERS = 3;
/** Advertised UDP payload size (the DNS flag day 2020 value): a signed DS answer fits. */
const UDP_PAYLOAD = 1232;

export interface ServerAddress {
  readonly address: string;
  readonly port: number;
}

/** `1.2.3.4`, `1.2.3.4:53`, `::1` or `[::1]:53` → address and port; null when unreadable. */
export function parseServer(server: string): ServerAddress | null {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? { address: bracketed[1]!, port: Number(bracketed[2] ?? 53) } : null;
  if (isIP(server) !== 0) return { address: server, port: 53 };
  const v4 = /^([\d.]+):(\d+)$/.exec(server);
  return v4 && isIP(v4[1]!) === 4 ? { address: v4[1]!, port: Number(v4[2]) } : null;
}

/** `keyTag algorithm digestType DIGEST`, as in a zone file. */
export function formatDs(data: dnsPacket.DsData): string {
  return `${data.keyTag} ${data.algorithm} ${data.digestType} ${data.digest.toString('hex').toUpperCase()}`;
}

function dsQuery(id: number, domain: string): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHENTIC_DATA,
    questions: [{ type: 'DS', class: 'IN', name: domain }],
    additionals: [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: UDP_PAYLOAD,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: dnsPacket.DNSSEC_OK,
        flag_do: true,
        options: [],
      },
    ],
  });
}

/** The decoded answer to query `id` for `domain`, or null for any other datagram (ignored). */
function matchingResponse(message: Buffer, id: number, domain: string): dnsPacket.DecodedPacket | null {
  try {
    const packet = dnsPacket.decode(message);
    const question = packet.questions?.[0];
    if (packet.type !== 'response' || packet.id !== id || !question) return null;
    return question.type === 'DS' && question.name.toLowerCase() === domain ? packet : null;
  } catch {
    return null;
  }
}

/** Sends the DS query to one server; resolves with its answer, rejects on timeout or socket error. */
function askServer(server: ServerAddress, domain: string, timeoutMs: number): Promise<dnsPacket.DecodedPacket> {
  const socket = createSocket(isIP(server.address) === 6 ? 'udp6' : 'udp4');
  const id = randomInt(0x10000);
  return new Promise<dnsPacket.DecodedPacket>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const finish = (outcome: Error | dnsPacket.DecodedPacket) => {
      clearTimeout(timer);
      socket.removeAllListeners('message');
      socket.close();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    socket.on('error', (error) => finish(error));
    socket.on('message', (message, remote) => {
      if (remote.port !== server.port) return;
      const packet = matchingResponse(message, id, domain);
      if (packet) finish(packet);
    });
    socket.send(dsQuery(id, domain), server.port, server.address);
  });
}

/** The answer of one server, or why it gave none that can be relied on. */
async function answerOf(server: ServerAddress, label: string, domain: string, timeoutMs: number) {
  const packet = await askServer(server, domain, timeoutMs);
  const rcode = (packet as dnsPacket.DecodedPacket & { rcode?: string }).rcode ?? 'UNKNOWN';
  const ds = (packet.answers ?? [])
    .filter((a): a is dnsPacket.DSAnswer => a.type === 'DS' && a.name.toLowerCase() === domain)
    .map((a) => formatDs(a.data));
  if (rcode !== 'NOERROR' && rcode !== 'NXDOMAIN') throw new Error(`${rcode}`);
  if (packet.flag_tc && ds.length === 0) throw new Error('truncated answer');
  const answer: DnssecAnswer = { resolver: label, rcode, ad: packet.flag_ad, ds };
  return answer;
}

/** Queries the DS record of `registrable`; throws when no server gives a definite answer. */
export async function queryDnssec(registrable: string, options: DnssecQueryOptions): Promise<DnssecAnswer> {
  const domain = registrable.replace(/\.$/, '').toLowerCase();
  const failures: string[] = [];
  for (const label of options.servers.slice(0, MAX_SERVERS)) {
    const server = parseServer(label);
    if (!server) {
      failures.push(`${label}: not a resolver address`);
      continue;
    }
    try {
      return await answerOf(server, label, domain, options.timeoutMs);
    } catch (error) {
      failures.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failures.length === 0) throw new Error('no DNS resolver configured');
  throw new Error(`DS query for ${domain} failed (${failures.join('; ')})`);
}
