/**
 * Real servers on 127.0.0.1 only. Every socket the client opens is recorded through undici's
 * diagnostics channel and checked to be loopback, so a policy bug cannot send traffic elsewhere
 * unnoticed (and the pinned lookup makes it impossible by construction).
 */
import assert from 'node:assert/strict';
import { selfSignedCertificate } from '../support/certificates';
import { ADDRESS_PATTERN } from '../support/addresses';
import { api, newAccount } from '../support/stack';
import diagnosticsChannel from 'node:diagnostics_channel';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import {
  classifyOutboundError,
  DnsResolutionError,
  OutboundBlockedError,
  OutboundConnectError,
  OutboundError,
  OutboundTimeoutError,
  OutboundTlsError,
  RedirectError,
} from '../../src/outbound/errors';
import { outboundRequest } from '../../src/outbound/client';
import { closeOutboundAgents } from '../../src/outbound/pinned-agents';
import { parseCidrList } from '../../src/outbound/policy';
import { followRedirects } from '../../src/outbound/redirects';
import type { LookupAllFn } from '../../src/outbound/resolve';

const LOOPBACK = parseCidrList('127.0.0.0/8');
const NONE = parseCidrList(undefined);
const base = { timeoutMs: 3_000, maxBodyBytes: 1_000_000, allow: LOOPBACK };

/** Every name maps to 127.0.0.1 unless listed; counts calls per name. */
function mapLookup(overrides: Record<string, string> = {}): LookupAllFn & { calls: string[] } {
  const calls: string[] = [];
  const fn: LookupAllFn = async (host) => {
    calls.push(host);
    const address = overrides[host] ?? '127.0.0.1';
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return Object.assign(fn, { calls });
}

// --- socket audit -----------------------------------------------------------------------------
const connectedTo: string[] = [];
const attemptedHosts: string[] = [];
const onBeforeConnect = (msg: unknown) => {
  attemptedHosts.push((msg as { connectParams: { hostname: string } }).connectParams.hostname);
};
const onConnected = (msg: unknown) => {
  connectedTo.push((msg as { socket: Socket }).socket.remoteAddress ?? '?');
};

// --- servers ----------------------------------------------------------------------------------
let server: http.Server;
let port: number;
let origin: string;
const openSockets = new Set<Socket>();
const seen: Array<{ path: string; host?: string; ua?: string; method?: string }> = [];

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  seen.push({ path: url.pathname, host: req.headers.host, ua: req.headers['user-agent'], method: req.method });
  const redirect = (to: string, status = 302) => {
    res.writeHead(status, { location: to });
    res.end();
  };
  switch (url.pathname) {
    case '/hello':
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('x-echo-host', req.headers.host ?? '');
      res.end('hello world');
      return;
    case '/big': // 1 MiB
      res.end(Buffer.alloc(1024 * 1024, 0x61));
      return;
    case '/exact':
      res.end(Buffer.alloc(1000, 0x62));
      return;
    case '/endless': {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x63);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
      return;
    }
    case '/hang': // never answers
      return;
    case '/slow-body': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first bytes');
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('.')), 100);
      res.on('close', () => clearInterval(t));
      return;
    }
    case '/echo': {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            method: req.method,
            body: Buffer.concat(chunks).toString(),
            ct: req.headers['content-type'] ?? null,
            auth: req.headers.authorization ?? null,
          }),
        );
      });
      return;
    }
    case '/redirect':
      redirect('/hello');
      return;
    case '/chain/a':
      redirect('/chain/b', 301);
      return;
    case '/chain/b':
      redirect(`http://other.test:${port}/chain/c`, 308);
      return;
    case '/chain/c':
      res.end('end of chain');
      return;
    case '/loop/1':
      redirect('/loop/2');
      return;
    case '/loop/2':
      redirect('/loop/1#frag');
      return;
    case '/post-303':
      redirect('/echo', 303);
      return;
    case '/post-307':
      redirect('/echo', 307);
      return;
    case '/to-metadata':
      redirect('http://169.254.169.254/latest/meta-data/');
      return;
    case '/to-private':
      redirect('http://10.0.0.1/admin');
      return;
    case '/to-private-name':
      redirect('http://internal.test/');
      return;
    case '/to-ftp':
      redirect('ftp://example.com/');
      return;
    case '/cross-origin-auth':
      redirect(`http://other.test:${port}/echo`, 307);
      return;
    default:
      if (url.pathname.startsWith('/n/')) {
        redirect(`/n/${Number(url.pathname.slice(3)) + 1}`);
        return;
      }
      res.statusCode = 404;
      res.end('not found');
  }
}

async function listen(s: http.Server | https.Server, host = '127.0.0.1'): Promise<number> {
  s.on('connection', (sock: Socket) => {
    openSockets.add(sock);
    sock.on('close', () => openSockets.delete(sock));
  });
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, host, () => resolve());
  });
  return (s.address() as AddressInfo).port;
}

async function expectError<T extends Error>(p: Promise<unknown>, cls: new (...a: never[]) => T): Promise<T> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${(err as Error)?.name}: ${(err as Error)?.message}`);
    return err as T;
  }
  throw new assert.AssertionError({ message: `expected ${cls.name}, but it resolved` });
}

describe('outbound client (integration, 127.0.0.1 only)', function () {
  this.timeout(10_000);

  before(async () => {
    diagnosticsChannel.subscribe('undici:client:beforeConnect', onBeforeConnect);
    diagnosticsChannel.subscribe('undici:client:connected', onConnected);
    server = http.createServer(handler);
    port = await listen(server);
    origin = `http://127.0.0.1:${port}`;
  });

  after(async () => {
    diagnosticsChannel.unsubscribe('undici:client:beforeConnect', onBeforeConnect);
    diagnosticsChannel.unsubscribe('undici:client:connected', onConnected);
    await closeOutboundAgents();
    for (const s of openSockets) s.destroy();
    await new Promise((r) => server.close(r));
    // The whole suite only ever reached loopback.
    assert.ok(connectedTo.length > 0);
    for (const a of connectedTo) assert.ok(a === '127.0.0.1' || a === '::1', `connected to ${a}`);
    for (const h of attemptedHosts)
      assert.ok(!/^(10\.|169\.254\.)/.test(h) && h !== 'internal.test', `tried to connect to ${h}`);
  });

  describe('outboundRequest', () => {
    it('returns status, headers, body, timings and the pinned address', async () => {
      const res = await outboundRequest({ ...base, url: `${origin}/hello#ignored` });
      assert.equal(res.status, 200);
      assert.equal(res.url, `${origin}/hello`);
      assert.equal(res.body.toString(), 'hello world');
      assert.equal(res.truncated, false);
      assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2']);
      assert.equal(res.headers['x-echo-host'], `127.0.0.1:${port}`);
      assert.equal(res.remoteAddress, '127.0.0.1');
      assert.ok(res.ttfbMs >= 0 && res.totalMs >= res.ttfbMs);
      assert.match(seen[seen.length - 1].ua ?? '', /^DomainAuditBot\//);
    });

    it('sends a custom User-Agent', async () => {
      await outboundRequest({ ...base, url: `${origin}/hello`, userAgent: 'TestBot/1.0' });
      assert.equal(seen[seen.length - 1].ua, 'TestBot/1.0');
    });

    it('POSTs a body and HEADs without one', async () => {
      const res = await outboundRequest({
        ...base,
        url: `${origin}/echo`,
        method: 'POST',
        body: '{"x":1}',
        headers: { 'Content-Type': 'application/json' },
      });
      assert.deepEqual(JSON.parse(res.body.toString()), {
        method: 'POST',
        body: '{"x":1}',
        ct: 'application/json',
        auth: null,
      });
      const head = await outboundRequest({ ...base, url: `${origin}/hello`, method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
    });

    it('refuses to let callers set Host, and non-http URLs', async () => {
      await assert.rejects(
        outboundRequest({ ...base, url: `${origin}/hello`, headers: { Host: 'evil.test' } }),
        TypeError,
      );
      const e = await expectError(outboundRequest({ ...base, url: 'ftp://127.0.0.1/' }), OutboundError);
      assert.equal(e.kind, 'other');
      await expectError(outboundRequest({ ...base, url: 'not a url' }), OutboundError);
      await expectError(outboundRequest({ ...base, url: `http://u:p@127.0.0.1:${port}/` }), OutboundError);
    });

    describe('body cap', () => {
      it('truncates at maxBodyBytes', async () => {
        const res = await outboundRequest({ ...base, url: `${origin}/big`, maxBodyBytes: 1000 });
        assert.equal(res.body.length, 1000);
        assert.equal(res.truncated, true);
        assert.equal(res.status, 200);
      });
      it('does not flag a body of exactly maxBodyBytes', async () => {
        const res = await outboundRequest({ ...base, url: `${origin}/exact`, maxBodyBytes: 1000 });
        assert.equal(res.body.length, 1000);
        assert.equal(res.truncated, false);
      });
      it('stops reading an endless body at its limit', async () => {
        const res = await outboundRequest({ ...base, url: `${origin}/endless`, maxBodyBytes: 100_000 });
        assert.equal(res.body.length, 100_000);
        assert.equal(res.truncated, true);
      });
      it('keeps working after a truncated response', async () => {
        const res = await outboundRequest({ ...base, url: `${origin}/hello` });
        assert.equal(res.body.toString(), 'hello world');
      });
    });

    describe('timeout', () => {
      it('times out a server that never answers', async () => {
        const t = Date.now();
        const e = await expectError(
          outboundRequest({ ...base, url: `${origin}/hang`, timeoutMs: 300 }),
          OutboundTimeoutError,
        );
        // It waited for its deadline; that the deadline ended the wait is the error itself (the server
        // never answers), so no upper bound on the clock.
        const elapsed = Date.now() - t;
        assert.ok(elapsed >= 250, `took ${elapsed} ms`);
        assert.equal(e.phase, 'headers');
        assert.equal(classifyOutboundError(e), 'timeout');
      });
      it('one deadline covers the body too', async () => {
        // The body never ends, a byte every 100 ms: only the deadline can end the read.
        const e = await expectError(
          outboundRequest({ ...base, url: `${origin}/slow-body`, timeoutMs: 400 }),
          OutboundTimeoutError,
        );
        assert.equal(e.phase, 'body');
      });
      it('covers a DNS lookup that hangs', async () => {
        const lookup: LookupAllFn = () => new Promise(() => undefined);
        const e = await expectError(
          outboundRequest({ ...base, url: 'http://slow-dns.test/', timeoutMs: 200, lookup }),
          OutboundTimeoutError,
        );
        assert.equal(e.phase, 'dns');
      });
    });

    it('returns a redirect as-is instead of following it', async () => {
      const before = seen.length;
      const res = await outboundRequest({ ...base, url: `${origin}/redirect` });
      assert.equal(res.status, 302);
      assert.equal(res.headers.location, '/hello');
      assert.deepEqual(
        seen.slice(before).map((s) => s.path),
        ['/redirect'],
      );
    });

    describe('policy', () => {
      it('blocks loopback without the allow list, before connecting', async () => {
        const attempts = attemptedHosts.length;
        const e = await expectError(
          outboundRequest({ ...base, allow: NONE, url: `${origin}/hello` }),
          OutboundBlockedError,
        );
        assert.equal(classifyOutboundError(e), 'blocked_address');
        assert.equal(e.message, '127.0.0.1 resolves to an address that may not be contacted');
        assert.match(e.detail, /127\.0\.0\.1 \(loopback address/);
        assert.equal(attemptedHosts.length, attempts);
      });
      it('blocks a name resolving to loopback without the allow list', async () => {
        const e = await expectError(
          outboundRequest({ ...base, allow: NONE, url: `http://localhost.test:${port}/`, lookup: mapLookup() }),
          OutboundBlockedError,
        );
        assert.equal(e.message, 'localhost.test resolves to an address that may not be contacted');
        assert.match(e.detail, /^127\.0\.0\.1 \(loopback/);
      });
      it('blocks metadata and private literals even with loopback allowed', async () => {
        await expectError(
          outboundRequest({ ...base, url: 'http://169.254.169.254/latest/meta-data/' }),
          OutboundBlockedError,
        );
        await expectError(outboundRequest({ ...base, url: 'http://[::ffff:10.0.0.1]/' }), OutboundBlockedError);
        await expectError(outboundRequest({ ...base, url: 'http://[fd00:ec2::254]/' }), OutboundBlockedError);
      });
    });

    describe('DNS', () => {
      it('pins the connection to the address checked once (no rebinding)', async () => {
        let calls = 0;
        const rebinding: LookupAllFn = async () => {
          calls += 1;
          return [{ address: calls === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
        };
        const res = await outboundRequest({ ...base, url: `http://rebind.test:${port}/hello`, lookup: rebinding });
        assert.equal(res.status, 200);
        assert.equal(calls, 1, 'the lookup must be consulted exactly once');
        assert.equal(res.remoteAddress, '127.0.0.1');
        // Host header (and SNI) keep the real name.
        assert.equal(res.headers['x-echo-host'], `rebind.test:${port}`);
        // The next request resolves again and is checked again: now refused.
        await expectError(
          outboundRequest({ ...base, url: `http://rebind.test:${port}/hello`, lookup: rebinding }),
          OutboundBlockedError,
        );
        assert.equal(calls, 2);
      });
      it('reports a name that does not resolve', async () => {
        const lookup: LookupAllFn = async (host) => {
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        };
        const e = await expectError(
          outboundRequest({ ...base, url: 'http://nxdomain.test/', lookup }),
          DnsResolutionError,
        );
        assert.equal(e.code, 'ENOTFOUND');
        assert.equal(classifyOutboundError(e), 'dns');
      });
    });

    it('classifies a refused connection as connect', async () => {
      const tmp = http.createServer();
      const closedPort = await listen(tmp);
      await new Promise((r) => tmp.close(r));
      const e = await expectError(
        outboundRequest({ ...base, url: `http://127.0.0.1:${closedPort}/` }),
        OutboundConnectError,
      );
      assert.equal(e.code, 'ECONNREFUSED');
      assert.equal(classifyOutboundError(e), 'connect');
    });

    it('reaches IPv6 loopback when allowed', async function () {
      const s6 = http.createServer(handler);
      let p6: number;
      try {
        p6 = await listen(s6, '::1');
      } catch {
        this.skip();
      }
      try {
        await expectError(outboundRequest({ ...base, url: `http://[::1]:${p6}/hello` }), OutboundBlockedError);
        const res = await outboundRequest({
          ...base,
          allow: parseCidrList('::1/128'),
          url: `http://[::1]:${p6}/hello`,
        });
        assert.equal(res.status, 200);
        assert.equal(res.remoteAddress, '::1');
      } finally {
        s6.closeAllConnections();
        await new Promise((r) => s6.close(r));
      }
    });
  });

  describe('followRedirects', () => {
    it('follows a chain by hand and reports every hop', async () => {
      const lookup = mapLookup();
      const r = await followRedirects({ ...base, url: `${origin}/chain/a`, lookup });
      assert.deepEqual(r.chain, [
        { url: `${origin}/chain/a`, status: 301, location: '/chain/b' },
        { url: `${origin}/chain/b`, status: 308, location: `http://other.test:${port}/chain/c` },
        { url: `http://other.test:${port}/chain/c`, status: 200 },
      ]);
      assert.equal(r.finalUrl, `http://other.test:${port}/chain/c`);
      assert.equal(r.response.body.toString(), 'end of chain');
      assert.deepEqual(lookup.calls, ['other.test']); // the new host was resolved and checked
    });

    it('detects loops (ignoring fragments)', async () => {
      const e = await expectError(followRedirects({ ...base, url: `${origin}/loop/1` }), RedirectError);
      assert.equal(e.reason, 'loop');
      assert.deepEqual(
        e.redirectChain?.map((h) => h.status),
        [302, 302],
      );
    });

    it('stops after maxRedirects', async () => {
      const e = await expectError(followRedirects({ ...base, url: `${origin}/n/0`, maxRedirects: 3 }), RedirectError);
      assert.equal(e.reason, 'too_many_redirects');
      assert.equal(e.redirectChain?.length, 4);
      const ok = await followRedirects({ ...base, url: `${origin}/chain/a`, maxRedirects: 2, lookup: mapLookup() });
      assert.equal(ok.chain.length, 3);
    });

    it('refuses a hop to the metadata address before connecting', async () => {
      const attempts = attemptedHosts.length;
      const e = await expectError(followRedirects({ ...base, url: `${origin}/to-metadata` }), OutboundBlockedError);
      // The literal is the site's own Location header; the rule that refused it is for the log only.
      assert.equal(e.message, '169.254.169.254 resolves to an address that may not be contacted');
      assert.match(e.detail, /169\.254\.169\.254 \(cloud metadata endpoint/);
      assert.deepEqual(e.redirectChain, [
        { url: `${origin}/to-metadata`, status: 302, location: 'http://169.254.169.254/latest/meta-data/' },
      ]);
      assert.ok(attemptedHosts.slice(attempts).every((h) => h === '127.0.0.1'));
    });

    it('refuses a hop to a private address, literal or by name', async () => {
      const e1 = await expectError(followRedirects({ ...base, url: `${origin}/to-private` }), OutboundBlockedError);
      assert.match(e1.detail, /10\.0\.0\.1 \(private network/);
      const lookup = mapLookup({ 'internal.test': '10.0.0.1' });
      const e2 = await expectError(
        followRedirects({ ...base, url: `${origin}/to-private-name`, lookup }),
        OutboundBlockedError,
      );
      assert.equal(e2.message, 'internal.test resolves to an address that may not be contacted');
      assert.match(e2.detail, /^10\.0\.0\.1 \(private network/);
      assert.equal(classifyOutboundError(e2), 'blocked_address');
    });

    it('refuses a redirect to another protocol', async () => {
      const e = await expectError(followRedirects({ ...base, url: `${origin}/to-ftp` }), RedirectError);
      assert.equal(e.reason, 'invalid_location');
    });

    it('turns POST into GET on 303 and keeps it on 307', async () => {
      const post = { ...base, method: 'POST' as const, body: 'payload', headers: { 'content-type': 'text/plain' } };
      const r303 = await followRedirects({ ...post, url: `${origin}/post-303` });
      assert.deepEqual(JSON.parse(r303.response.body.toString()), { method: 'GET', body: '', ct: null, auth: null });
      const r307 = await followRedirects({ ...post, url: `${origin}/post-307` });
      assert.deepEqual(JSON.parse(r307.response.body.toString()), {
        method: 'POST',
        body: 'payload',
        ct: 'text/plain',
        auth: null,
      });
    });

    it('drops credentials when a hop changes origin', async () => {
      const r = await followRedirects({
        ...base,
        url: `${origin}/cross-origin-auth`,
        headers: { Authorization: 'Bearer secret' },
        lookup: mapLookup(),
      });
      assert.equal(JSON.parse(r.response.body.toString()).auth, null);
    });
  });

  describe('https', () => {
    let tlsServer: https.Server;
    let tlsPort: number;
    let dir: string;

    before(function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbound-tls-'));
      if (!selfSignedCertificate(dir)) this.skip(); // no openssl CLI on this machine
    });

    before(async () => {
      tlsServer = https.createServer(
        { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) },
        (req, res) => {
          res.setHeader('x-sni', (req.socket as TLSSocket).servername || '');
          handler(req, res);
        },
      );
      tlsPort = await listen(tlsServer);
    });

    after(async () => {
      if (tlsServer) await new Promise((r) => tlsServer.close(r));
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('rejects a self-signed certificate as a tls error', async () => {
      const e = await expectError(
        outboundRequest({ ...base, url: `https://localhost:${tlsPort}/hello`, lookup: mapLookup() }),
        OutboundTlsError,
      );
      assert.equal(classifyOutboundError(e), 'tls');
      assert.equal(e.code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
    });

    it('with allowInvalidTls, answers despite a self-signed certificate', async () => {
      const res = await outboundRequest({
        ...base,
        url: `https://localhost:${tlsPort}/hello`,
        lookup: mapLookup(),
        allowInvalidTls: true,
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.toString(), 'hello world');
      assert.equal(res.headers['x-sni'], 'localhost'); // SNI is the real name, not the pinned IP
    });

    it('a lax connection is never reused for a strict request', async () => {
      await outboundRequest({
        ...base,
        url: `https://localhost:${tlsPort}/hello`,
        lookup: mapLookup(),
        allowInvalidTls: true,
      });
      await expectError(
        outboundRequest({ ...base, url: `https://localhost:${tlsPort}/hello`, lookup: mapLookup() }),
        OutboundTlsError,
      );
    });

    it('reaches IPv6 literals and the default port over TLS', async function () {
      const tlsOpts = {
        key: fs.readFileSync(path.join(dir, 'key.pem')),
        cert: fs.readFileSync(path.join(dir, 'cert.pem')),
      };
      const extra: https.Server[] = [];
      let ran = 0;
      try {
        const v6 = https.createServer(tlsOpts, handler);
        const v6Port = await listen(v6, '::1').catch(() => null);
        if (v6Port !== null) {
          extra.push(v6);
          const res = await outboundRequest({
            ...base,
            allow: parseCidrList('::1/128'),
            url: `https://[::1]:${v6Port}/hello`,
            allowInvalidTls: true,
          });
          assert.equal(res.status, 200);
          ran++;
        }
        // Port 443 needs privileges and may be taken: only when we can bind it.
        const p443 = https.createServer(tlsOpts, handler);
        const bound = await new Promise<boolean>((resolve) => {
          p443.once('error', () => resolve(false));
          p443.listen(443, '127.0.0.1', () => resolve(true));
        });
        if (bound) {
          extra.push(p443);
          p443.on('connection', (sock: Socket) => openSockets.add(sock));
          const res = await outboundRequest({
            ...base,
            url: 'https://localhost/hello',
            lookup: mapLookup(),
            allowInvalidTls: true,
          });
          assert.equal(res.status, 200);
          ran++;
        }
      } finally {
        await closeOutboundAgents();
        for (const s of extra) {
          s.closeAllConnections();
          await new Promise((r) => s.close(r));
        }
      }
      if (ran === 0) this.skip();
    });

    it('speaking TLS to a plain HTTP port is a tls error', async () => {
      const e = await expectError(outboundRequest({ ...base, url: `https://127.0.0.1:${port}/hello` }), OutboundError);
      assert.equal(classifyOutboundError(e), 'tls');
    });
  });
});

describe('refusals through the API (live audits and webhook URLs)', function () {
  this.timeout(60_000);
  // The test stack allows 127.0.0.0/8 (local fixture sites), so loopback is tested as ::1.
  const refused = [
    'http://10.1.2.3',
    'http://[::1]',
    'http://169.254.169.254',
    'http://[::ffff:10.1.2.3]',
    'http://[::ffff:a9fe:a9fe]',
    'http://[fd00:ec2::254]',
    'https://no-such-host.invalid',
  ];

  it('live audits: no address in the message, NXDOMAIN and blocked alike, nothing stored', async () => {
    const account = await newAccount('pro');
    const messages = new Set<string>();
    for (const domain of refused) {
      const response = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain } });
      assert.equal(response.status, 400, `${domain}: ${response.text}`);
      assert.equal(response.body.error.code, 'invalid_domain');
      assert.doesNotMatch(response.body.error.message, ADDRESS_PATTERN, domain);
      messages.add(response.body.error.message);
    }
    assert.deepEqual(
      [...messages],
      ['domain cannot be audited: the host does not resolve, or resolves to an address that may not be contacted'],
    );
    const usage = await api('GET', '/v1/usage', { key: account.liveKey });
    assert.equal(usage.status, 200);
    assert.equal(usage.body.audits_used, 0);
  });

  it('live audits refuse single-label hosts', async () => {
    const account = await newAccount('pro');
    for (const domain of ['http://intranet', 'https://localhost:8443']) {
      const response = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain } });
      assert.equal(response.status, 400, domain);
      assert.equal(response.body.error.code, 'invalid_domain');
      assert.match(response.body.error.message, /at least one dot/);
    }
  });

  it('webhook URLs: the same words, no address; single-label hosts refused', async () => {
    const account = await newAccount('team');
    const messages = new Set<string>();
    for (const origin of refused) {
      for (const [path, body] of [
        ['/v1/webhooks', { url: `${origin}/hook` }],
        ['/v1/audits', { domain: 'https://example.com', webhook_url: `${origin}/hook` }],
      ] as const) {
        const response = await api('POST', path, { key: account.testKey, body });
        assert.equal(response.status, 400, `${path} ${origin}: ${response.text}`);
        assert.equal(response.body.error.code, 'invalid_request');
        assert.doesNotMatch(response.body.error.message, ADDRESS_PATTERN, origin);
        messages.add(response.body.error.message.replace(/^field (url|webhook_url) /, 'field … '));
      }
    }
    assert.deepEqual(
      [...messages],
      [
        'field … cannot receive webhooks: the host does not resolve, or resolves to an address that may not be contacted',
      ],
    );
    for (const url of ['http://intranet/hook', 'https://intranet./hook']) {
      const response = await api('POST', '/v1/webhooks', { key: account.testKey, body: { url } });
      assert.equal(response.status, 400, url);
      assert.match(response.body.error.message, /^field url must name a host with a domain/);
    }
  });
});
