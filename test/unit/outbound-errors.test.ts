import assert from 'node:assert/strict';
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

const withCode = (code: unknown) => Object.assign(new Error('raw'), { code });

describe('outbound errors', () => {
  it('carry kind, name, code and cause; no cause property when there is none', () => {
    const cause = new Error('root');
    const e = new OutboundError('other', 'boom', { code: 'E1', cause });
    assert.deepEqual([e.kind, e.name, e.message, e.code, e.cause], ['other', 'OutboundError', 'boom', 'E1', cause]);
    const bare = new OutboundError('connect', 'x');
    assert.equal('cause' in bare, false);
    assert.equal(bare.code, undefined);
    assert.ok(bare instanceof Error);
  });

  it('name each subclass and keep its details', () => {
    const cause = new Error('root');
    const timeout = new OutboundTimeoutError(1500, 'body');
    assert.deepEqual(
      [timeout.name, timeout.kind, timeout.code, timeout.message, timeout.timeoutMs, timeout.phase],
      [
        'OutboundTimeoutError',
        'timeout',
        'ETIMEDOUT',
        'no complete response within 1500 ms (timed out during body)',
        1500,
        'body',
      ],
    );
    const connect = new OutboundConnectError('refused', 'ECONNREFUSED', cause);
    assert.deepEqual(
      [connect.name, connect.kind, connect.code, connect.message, connect.cause],
      ['OutboundConnectError', 'connect', 'ECONNREFUSED', 'refused', cause],
    );
    const tls = new OutboundTlsError('bad cert', 'CERT_HAS_EXPIRED', cause);
    assert.deepEqual(
      [tls.name, tls.kind, tls.code, tls.message, tls.cause],
      ['OutboundTlsError', 'tls', 'CERT_HAS_EXPIRED', 'bad cert', cause],
    );
    const dns = new DnsResolutionError('gone.example', 'ENOTFOUND', cause);
    assert.deepEqual(
      [dns.name, dns.kind, dns.code, dns.message, dns.host, dns.cause],
      [
        'DnsResolutionError',
        'dns',
        'ENOTFOUND',
        'DNS lookup of gone.example failed (ENOTFOUND)',
        'gone.example',
        cause,
      ],
    );
    const chain = [{ url: 'http://a.example/', status: 302, location: '/b' }];
    const redirect = new RedirectError('too_many_redirects', 'too many', chain);
    assert.deepEqual(
      [redirect.name, redirect.kind, redirect.code, redirect.reason, redirect.message, redirect.redirectChain],
      ['RedirectError', 'other', 'TOO_MANY_REDIRECTS', 'too_many_redirects', 'too many', chain],
    );
    const blocked = new OutboundBlockedError('a.example', [
      { address: '10.0.0.1', reason: 'private' },
      { address: '::1', reason: 'loopback' },
    ]);
    assert.deepEqual(
      [blocked.name, blocked.kind, blocked.code],
      ['OutboundBlockedError', 'blocked_address', 'BLOCKED_ADDRESS'],
    );
    assert.equal(blocked.message, 'a.example resolves to an address that may not be contacted');
    assert.equal(blocked.detail, '10.0.0.1 (private), ::1 (loopback)');
  });

  describe('classifyOutboundError', () => {
    const kinds: Record<string, string[]> = {
      timeout: ['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'],
      dns: [
        'ENOTFOUND',
        'EAI_AGAIN',
        'EAI_FAIL',
        'EAI_NONAME',
        'EAI_NODATA',
        'ENODATA',
        'ESERVFAIL',
        'ENOTIMP',
        'EREFUSED',
        'EBADNAME',
        'ETIMEOUT',
      ],
      connect: [
        'ECONNREFUSED',
        'ECONNRESET',
        'ECONNABORTED',
        'EHOSTUNREACH',
        'ENETUNREACH',
        'EHOSTDOWN',
        'ENETDOWN',
        'EPIPE',
        'EADDRNOTAVAIL',
        'UND_ERR_SOCKET',
        'UND_ERR_CLOSED',
      ],
      tls: [
        'ERR_TLS_CERT_ALTNAME_INVALID',
        'ERR_SSL_WRONG_VERSION_NUMBER',
        'CERT_HAS_EXPIRED',
        'UNABLE_TO_GET_ISSUER_CERT',
        'DEPTH_ZERO_SELF_SIGNED_CERT',
        'SELF_SIGNED_CERT_IN_CHAIN',
        'HOSTNAME_MISMATCH',
        'INVALID_CA',
        'PATH_LENGTH_EXCEEDED',
        'INVALID_PURPOSE',
        'ERR_OSSL_EVP_BAD_DECRYPT',
      ],
    };
    for (const [kind, codes] of Object.entries(kinds)) {
      it(`${kind}: every listed code`, () => {
        for (const code of codes) assert.equal(classifyOutboundError(withCode(code)), kind, code);
      });
    }

    it('matches whole TLS verify names and prefixes only at the start', () => {
      for (const code of [
        'X_CERT_HAS_EXPIRED',
        'DEPTH_ZERO_SELF_SIGNED_CERT_X',
        'SELF_SIGNED_CERT_IN_CHAIN_X',
        'HOSTNAME_MISMATCH_X',
        'INVALID_CA_X',
        'PATH_LENGTH_EXCEEDED_X',
        'INVALID_PURPOSE_X',
        'ERR_TLS',
        'cert_has_expired',
        '',
      ]) {
        assert.equal(classifyOutboundError(withCode(code)), 'other', code);
      }
    });

    it('ignores codes that are not strings', () => {
      assert.equal(classifyOutboundError(withCode(['CERT_HAS_EXPIRED'])), 'other');
      assert.equal(classifyOutboundError(withCode(110)), 'other');
    });

    it('recognises OpenSSL errors by library and AbortSignal time-outs by name', () => {
      assert.equal(classifyOutboundError(Object.assign(new Error('x'), { library: 'SSL routines' })), 'tls');
      assert.equal(classifyOutboundError(Object.assign(new Error('x'), { library: 'BIO routines' })), 'other');
      assert.equal(classifyOutboundError(Object.assign(new Error('x'), { name: 'TimeoutError' })), 'timeout');
      assert.equal(classifyOutboundError(Object.assign(new Error('x'), { name: 'AbortError' })), 'other');
    });

    it('follows cause up to 5 levels, and stops on a cycle', () => {
      const nest = (levels: number, inner: unknown): unknown =>
        levels === 0 ? inner : new Error('wrap', { cause: nest(levels - 1, inner) });
      assert.equal(classifyOutboundError(nest(4, withCode('ECONNRESET'))), 'connect');
      assert.equal(classifyOutboundError(nest(5, withCode('ECONNRESET'))), 'other');
      assert.equal(classifyOutboundError(nest(2, new OutboundTlsError('x', undefined))), 'tls');
      const cyclic: Error & { cause?: unknown } = new Error('loop');
      cyclic.cause = cyclic;
      assert.equal(classifyOutboundError(cyclic), 'other');
    });
  });
});
