import assert from 'node:assert/strict';
import { parseCidrList } from '../../src/outbound/policy';
import { DnsResolutionError, OutboundBlockedError, resolveAllowed, type LookupAllFn } from '../../src/outbound/resolve';
import {
  classifyOutboundError,
  OutboundConnectError,
  OutboundError,
  OutboundTimeoutError,
  OutboundTlsError,
} from '../../src/outbound/errors';

const NONE = parseCidrList(undefined);
const LOOPBACK = parseCidrList('127.0.0.0/8');

function fakeLookup(
  answers: Record<string, Array<{ address: string; family: number }> | string>,
): LookupAllFn & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string) => {
    calls.push(host);
    const a = answers[host];
    if (a === undefined || typeof a === 'string') {
      throw Object.assign(new Error(`getaddrinfo ${a ?? 'ENOTFOUND'} ${host}`), {
        code: a ?? 'ENOTFOUND',
        hostname: host,
      });
    }
    return a;
  };
  return Object.assign(fn, { calls });
}

describe('resolveAllowed', () => {
  it('checks IP literals without DNS, stripping IPv6 brackets', async () => {
    const lookup = fakeLookup({});
    assert.deepEqual(await resolveAllowed('93.184.215.14', NONE, { lookup }), { address: '93.184.215.14', family: 4 });
    assert.deepEqual(await resolveAllowed('[2606:4700::1]', NONE, { lookup }), { address: '2606:4700::1', family: 6 });
    assert.deepEqual(lookup.calls, []);
  });

  it('refuses blocked literals, keeping the address and reason out of the message', async () => {
    await assert.rejects(resolveAllowed('169.254.169.254', NONE), (e: unknown) => {
      assert.ok(e instanceof OutboundBlockedError);
      assert.equal(e.kind, 'blocked_address');
      assert.equal(e.code, 'BLOCKED_ADDRESS');
      assert.equal(e.name, 'OutboundBlockedError');
      assert.equal(e.message, '169.254.169.254 resolves to an address that may not be contacted');
      assert.equal(e.detail, '169.254.169.254 (cloud metadata endpoint (169.254.169.254/32))');
      assert.deepEqual(
        e.refused.map((r) => r.address),
        ['169.254.169.254'],
      );
      return true;
    });
    await assert.rejects(
      resolveAllowed('[::1]', LOOPBACK),
      (e: unknown) => e instanceof OutboundBlockedError && /^::1 \(loopback/.test(e.detail),
    );
  });

  it('refuses half-bracketed hosts, brackets around IPv4 or names, and zone ids, without DNS', async () => {
    const lookup = fakeLookup({ 'example.com': [{ address: '93.184.215.14', family: 4 }] });
    for (const host of ['[2606:4700::11', '2606:4700::11]', '[93.184.215.14]', '[example.com]', 'exa[mple.com', '[]']) {
      await assert.rejects(resolveAllowed(host, NONE, { lookup }), (e: unknown) => {
        assert.ok(e instanceof DnsResolutionError, host);
        assert.equal(e.code, 'EBADNAME');
        assert.equal(e.host, host);
        return true;
      });
    }
    await assert.rejects(
      resolveAllowed('2606:4700::11%eth0', parseCidrList('::/0'), { lookup }),
      (e: unknown) => e instanceof OutboundBlockedError && /zone id/.test(e.detail),
    );
    await assert.rejects(resolveAllowed('[2606:4700::11%eth0]', NONE, { lookup }), OutboundBlockedError);
    assert.deepEqual(lookup.calls, []);
  });

  it('asks for every address, and reports a lookup failure without a code as EUNKNOWN', async () => {
    const seen: unknown[] = [];
    const lookup: LookupAllFn = async (_host, options) => {
      seen.push(options);
      throw Object.assign(new Error('resolver broke'), { code: 42 });
    };
    await assert.rejects(
      resolveAllowed('odd.test', NONE, { lookup }),
      (e: unknown) => e instanceof DnsResolutionError && e.code === 'EUNKNOWN',
    );
    assert.deepEqual(seen, [{ all: true }]);
  });

  it('uses the system resolver (getaddrinfo, /etc/hosts) by default', async () => {
    assert.deepEqual(await resolveAllowed('localhost', LOOPBACK), { address: '127.0.0.1', family: 4 });
  });

  it('answers the family of the address it picked', async () => {
    const lookup = fakeLookup({
      'v6.test': [{ address: '2606:4700::1', family: 6 }],
      'v4.test': [{ address: '93.184.215.14', family: 4 }],
    });
    assert.deepEqual(await resolveAllowed('v6.test', NONE, { lookup }), { address: '2606:4700::1', family: 6 });
    assert.deepEqual(await resolveAllowed('v4.test', NONE, { lookup }), { address: '93.184.215.14', family: 4 });
    assert.deepEqual(await resolveAllowed('2606:4700::1', NONE, { lookup }), { address: '2606:4700::1', family: 6 });
  });

  it('allows literals in the allow list', async () => {
    assert.deepEqual(await resolveAllowed('127.0.0.1', LOOPBACK), { address: '127.0.0.1', family: 4 });
  });

  it('returns the first allowed address in resolver order', async () => {
    const lookup = fakeLookup({
      'mixed.test': [
        { address: '10.0.0.5', family: 4 },
        { address: '2606:4700::1', family: 6 },
        { address: '93.184.215.14', family: 4 },
      ],
    });
    assert.deepEqual(await resolveAllowed('mixed.test', NONE, { lookup }), { address: '2606:4700::1', family: 6 });
    assert.deepEqual(lookup.calls, ['mixed.test']);
  });

  it('refuses a name that resolves only to blocked addresses, naming each for the log only', async () => {
    const lookup = fakeLookup({
      'internal.test': [
        { address: '10.0.0.5', family: 4 },
        { address: '::ffff:169.254.169.254', family: 6 },
      ],
    });
    await assert.rejects(resolveAllowed('internal.test', NONE, { lookup }), (e: unknown) => {
      assert.ok(e instanceof OutboundBlockedError);
      assert.equal(e.host, 'internal.test');
      assert.equal(e.message, 'internal.test resolves to an address that may not be contacted');
      assert.equal(
        e.detail,
        '10.0.0.5 (private network address (RFC 1918) (10.0.0.0/8)), ::ffff:169.254.169.254 (IPv4-mapped form of 169.254.169.254: cloud metadata endpoint (169.254.169.254/32))',
      );
      return true;
    });
  });

  it('reports DNS failures with their code', async () => {
    const lookup = fakeLookup({ 'gone.test': 'ENOTFOUND', 'flaky.test': 'EAI_AGAIN', 'empty.test': [] });
    for (const [host, code] of [
      ['gone.test', 'ENOTFOUND'],
      ['flaky.test', 'EAI_AGAIN'],
      ['empty.test', 'ENODATA'],
    ]) {
      await assert.rejects(resolveAllowed(host, NONE, { lookup }), (e: unknown) => {
        assert.ok(e instanceof DnsResolutionError);
        assert.equal(e.code, code);
        assert.equal(e.kind, 'dns');
        assert.equal(classifyOutboundError(e), 'dns');
        assert.match(e.message, new RegExp(`${host.replace('.', '\\.')}.*${code}`));
        return true;
      });
    }
  });
});

describe('classifyOutboundError', () => {
  const err = (code: string) => Object.assign(new Error(code), { code });
  it('passes our own classes through', () => {
    assert.equal(classifyOutboundError(new OutboundTimeoutError(10, 'body')), 'timeout');
    assert.equal(classifyOutboundError(new OutboundConnectError('x', 'ECONNREFUSED')), 'connect');
    assert.equal(classifyOutboundError(new OutboundTlsError('x', 'CERT_HAS_EXPIRED')), 'tls');
    assert.equal(classifyOutboundError(new OutboundBlockedError('h', [])), 'blocked_address');
    assert.equal(classifyOutboundError(new OutboundError('other', 'x')), 'other');
  });
  it('classifies raw Node and undici errors by code, following cause', () => {
    const cases: Array<[string, string]> = [
      ['ECONNREFUSED', 'connect'],
      ['ECONNRESET', 'connect'],
      ['EHOSTUNREACH', 'connect'],
      ['UND_ERR_SOCKET', 'connect'],
      ['ETIMEDOUT', 'timeout'],
      ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
      ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
      ['UND_ERR_BODY_TIMEOUT', 'timeout'],
      ['ENOTFOUND', 'dns'],
      ['EAI_AGAIN', 'dns'],
      ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
      ['CERT_HAS_EXPIRED', 'tls'],
      ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
      ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
      ['SELF_SIGNED_CERT_IN_CHAIN', 'tls'],
      ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
      ['UND_ERR_INVALID_ARG', 'other'],
    ];
    for (const [code, kind] of cases) {
      assert.equal(classifyOutboundError(err(code)), kind, code);
      assert.equal(classifyOutboundError(new Error('wrapped', { cause: err(code) })), kind, `cause ${code}`);
    }
    assert.equal(classifyOutboundError(new Error('plain')), 'other');
    assert.equal(classifyOutboundError('string'), 'other');
    assert.equal(classifyOutboundError(null), 'other');
  });
});
