import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as dnsPacket from 'dns-packet';
import { dnssecMissing } from '../../src/analyzers/dns-email';
import { parsePages } from '../../src/analyzers/parse';
import type { CrawlSnapshot, DnsFacts, ProviderFacts } from '../../src/analyzers/snapshot';
import type { AnalyzerOutcome } from '../../src/analyzers/types';
import { Aborter } from '../../src/crawl/abort';
import { createCrawlContext } from '../../src/crawl/context';
import { parseServer, queryDnssec } from '../../src/crawl/dnssec';
import { dnsProbe } from '../../src/crawl/provider-probes';
import { parseCidrList } from '../../src/outbound/policy';

/**
 * A local UDP DNS server written with dns-packet: `signed.test` has a DS record at the parent,
 * `unsigned.test` answers NOERROR without one, `gone.test` NXDOMAIN, `broken.test` SERVFAIL, and
 * `spoofed.test` is first answered with a forged id. Every other question gets an empty NOERROR.
 * A second server never answers.
 */

const DIGEST = Buffer.from('e2d3c916f6deeac73294e8268fb5885044a833fc5459588f4a9184cfc41a5766', 'hex');
const DS = { keyTag: 2371, algorithm: 13, digestType: 2, digest: DIGEST };

interface LocalDns {
  socket: Socket;
  server: string;
  queries: dnsPacket.DecodedPacket[];
}

function answer(query: dnsPacket.DecodedPacket): Buffer[] {
  const question = query.questions![0]!;
  const base = { type: 'response' as const, id: query.id, questions: query.questions };
  const reply = (flags: number, answers: dnsPacket.Answer[] = []) =>
    dnsPacket.encode({ ...base, flags: dnsPacket.RECURSION_AVAILABLE | flags, answers });
  const isDs = question.type === 'DS';
  if (question.name === 'signed.test' && isDs)
    return [reply(dnsPacket.AUTHENTIC_DATA, [{ type: 'DS', name: 'signed.test', ttl: 3600, data: DS }])];
  if (question.name === 'gone.test') return [reply(3)]; // rcode 3 NXDOMAIN
  if (question.name === 'broken.test') return [reply(2)]; // rcode 2 SERVFAIL
  if (question.name === 'spoofed.test' && isDs) {
    const forged = dnsPacket.encode({
      ...base,
      id: (query.id! + 1) % 0x10000,
      answers: [{ type: 'DS', name: 'spoofed.test', ttl: 3600, data: DS }],
    });
    return [forged, reply(0)];
  }
  return [reply(0)];
}

async function startServer(silent: boolean): Promise<LocalDns> {
  const socket = createSocket('udp4');
  const queries: dnsPacket.DecodedPacket[] = [];
  socket.on('message', (message, remote) => {
    const query = dnsPacket.decode(message);
    queries.push(query);
    if (silent) return;
    for (const reply of answer(query)) socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, server: `127.0.0.1:${(socket.address() as AddressInfo).port}`, queries };
}

let dns: LocalDns;
let silent: LocalDns;
before(async () => {
  dns = await startServer(false);
  silent = await startServer(true);
});
after(() => {
  dns.socket.close();
  silent.socket.close();
});

const options = (server: string) => ({ servers: [server], timeoutMs: 400 });

describe('queryDnssec against a local DNS server', () => {
  it('reads the DS record of a signed zone, with the AD flag, sending RD, AD and DO', async () => {
    const answer = await queryDnssec('Signed.Test.', options(dns.server));
    assert.deepEqual(answer, {
      resolver: dns.server,
      rcode: 'NOERROR',
      ad: true,
      ds: [`2371 13 2 ${DIGEST.toString('hex').toUpperCase()}`],
    });
    const query = dns.queries.find((q) => q.questions?.[0]?.name === 'signed.test')!;
    assert.equal(query.questions![0]!.type, 'DS');
    assert.ok(query.flag_rd && query.flag_ad);
    const opt = query.additionals?.find((a) => a.type === 'OPT') as dnsPacket.OptAnswer | undefined;
    assert.ok(opt?.flag_do, 'EDNS DO bit set');
  });

  it('gives definite empty answers for an unsigned zone (NOERROR) and a missing name (NXDOMAIN)', async () => {
    const unsigned = await queryDnssec('unsigned.test', options(dns.server));
    assert.deepEqual(unsigned, { resolver: dns.server, rcode: 'NOERROR', ad: false, ds: [] });
    const gone = await queryDnssec('gone.test', options(dns.server));
    assert.equal(gone.rcode, 'NXDOMAIN');
    assert.deepEqual(gone.ds, []);
  });

  it('ignores an answer with a forged id', async () => {
    const answer = await queryDnssec('spoofed.test', options(dns.server));
    assert.deepEqual(answer.ds, []);
  });

  it('throws when the server is silent (timeout) or answers SERVFAIL', async () => {
    // The message says the timeout ended the wait (a clock here would be a timed assertion).
    await assert.rejects(queryDnssec('signed.test', options(silent.server)), /no answer within 400 ms/);
    await assert.rejects(queryDnssec('broken.test', options(dns.server)), /SERVFAIL/);
    await assert.rejects(queryDnssec('signed.test', { servers: [], timeoutMs: 400 }), /no DNS resolver/);
  });

  it('moves to the next server when one does not answer', async () => {
    const answer = await queryDnssec('signed.test', { servers: [silent.server, dns.server], timeoutMs: 300 });
    assert.equal(answer.resolver, dns.server);
    assert.equal(answer.ds.length, 1);
  });

  it('reads resolver addresses as dns.getServers() writes them', () => {
    assert.deepEqual(parseServer('192.0.2.53'), { address: '192.0.2.53', port: 53 });
    assert.deepEqual(parseServer('127.0.0.1:5353'), { address: '127.0.0.1', port: 5353 });
    assert.deepEqual(parseServer('2001:db8::53'), { address: '2001:db8::53', port: 53 });
    assert.deepEqual(parseServer('[::1]:5353'), { address: '::1', port: 5353 });
    assert.equal(parseServer('resolver.example'), null);
  });
});

async function probe(origin: string, server: string): Promise<ProviderFacts<DnsFacts> | undefined> {
  const input = {
    origin,
    pageBudget: 1,
    allow: parseCidrList(''),
    userAgent: 'test',
    dnsResolver: { servers: [server], timeoutMs: 300 },
  };
  return dnsProbe(createCrawlContext(input, new Aborter(undefined)));
}

function analyze(origin: string, dnsFacts: ProviderFacts<DnsFacts> | undefined): AnalyzerOutcome {
  const page = {
    url: `${origin}/`,
    finalUrl: `${origin}/`,
    status: 200,
    headers: { 'content-type': 'text/html' },
    body: '<html></html>',
    ttfbMs: 1,
    bytes: 13,
    depth: 0,
    redirectChain: [],
  };
  const snapshot: CrawlSnapshot = {
    origin,
    robots: { kind: 'fetched', url: `${origin}/robots.txt`, status: 404, body: '' },
    pages: [page],
    ...(dnsFacts ? { dns: dnsFacts } : {}),
  };
  return dnssecMissing.run(snapshot, parsePages(snapshot.pages));
}

describe('DNS probe and DNS_DNSSEC_MISSING against a local DNS server', () => {
  it('passes a signed zone: the DS query goes to the registrable domain', async () => {
    const facts = await probe('https://www.signed.test', dns.server);
    assert.ok(facts?.ok);
    assert.equal(facts.facts.dnssec, true);
    assert.equal(facts.facts.dnssecAnswer?.ds.length, 1);
    assert.deepEqual(facts.facts.aaaa, []); // the other look-ups went to the same server
    assert.equal(analyze('https://www.signed.test', facts).status, 'pass');
  });

  it('fails an unsigned zone, citing the answer', async () => {
    const facts = await probe('https://www.unsigned.test', dns.server);
    assert.ok(facts?.ok);
    assert.equal(facts.facts.dnssec, false);
    const outcome = analyze('https://www.unsigned.test', facts);
    assert.equal(outcome.status, 'fail');
    assert.equal(
      outcome.findings[0]!.evidence,
      `unsigned.test: DNSSEC not validated, no DS record (NOERROR, from resolver ${dns.server})`,
    );
    assert.deepEqual(outcome.findings[0]!.urls, ['https://www.unsigned.test']);
  });

  it('reports a silent resolver as a provider error, so the check is error and not a finding', async () => {
    const facts = await probe('https://www.signed.test', silent.server);
    assert.equal(facts?.ok, false);
    assert.match(facts.error, /DNS lookup of www\.signed\.test failed/);
    assert.equal(analyze('https://www.signed.test', facts).status, 'error');
  });

  it('does not apply to IP-literal origins (no probe) nor to snapshots from before the DS query', async () => {
    assert.equal(await probe('http://127.0.0.1:8080', dns.server), undefined);
    assert.equal(analyze('http://127.0.0.1:8080', undefined).status, 'not_applicable');
    const old: ProviderFacts<DnsFacts> = {
      ok: true,
      facts: { aaaa: [], caa: [], dnssec: null, mx: [], spf: [], dmarc: [] },
    };
    assert.equal(analyze('https://www.signed.test', old).status, 'not_applicable');
  });
});
