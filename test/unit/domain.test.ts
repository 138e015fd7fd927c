import assert from 'node:assert/strict';
import { InvalidDomainError, normalizeDomain, type InvalidDomainReason } from '../../src/audits/domain';

function rejects(input: unknown, reason: InvalidDomainReason, message?: RegExp): void {
  let thrown: unknown;
  try {
    normalizeDomain(input);
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof InvalidDomainError, `${JSON.stringify(input)} should be rejected`);
  assert.equal(thrown.reason, reason, `${JSON.stringify(input)}: ${thrown.message}`);
  assert.equal(thrown.code, 'invalid_domain');
  assert.equal(thrown.name, 'InvalidDomainError');
  if (message) assert.match(thrown.message, message);
}

describe('normalizeDomain', () => {
  describe('accepts', () => {
    const good: Array<[string, string, string, 'http:' | 'https:', number | null]> = [
      ['https://example.com', 'https://example.com', 'example.com', 'https:', null],
      ['https://example.com/', 'https://example.com', 'example.com', 'https:', null],
      ['HTTPS://Example.COM/', 'https://example.com', 'example.com', 'https:', null],
      ['http://www.example.co.uk', 'http://www.example.co.uk', 'www.example.co.uk', 'http:', null],
      ['http://example.com:80', 'http://example.com', 'example.com', 'http:', null],
      ['https://example.com:443/', 'https://example.com', 'example.com', 'https:', null],
      ['https://example.com:8443', 'https://example.com:8443', 'example.com', 'https:', 8443],
      ['http://example.com:443', 'http://example.com:443', 'example.com', 'http:', 443],
      ['https://a-b.c-d.example', 'https://a-b.c-d.example', 'a-b.c-d.example', 'https:', null],
      ['https://1password.com', 'https://1password.com', '1password.com', 'https:', null],
      ['https://bücher.de', 'https://xn--bcher-kva.de', 'xn--bcher-kva.de', 'https:', null],
      ['https://BÜCHER.de', 'https://xn--bcher-kva.de', 'xn--bcher-kva.de', 'https:', null],
      ['https://xn--bcher-kva.de', 'https://xn--bcher-kva.de', 'xn--bcher-kva.de', 'https:', null],
      ['https://例え.テスト/', 'https://xn--r8jz45g.xn--zckzah', 'xn--r8jz45g.xn--zckzah', 'https:', null],
      ['https://ＥＸＡＭＰＬＥ.com', 'https://example.com', 'example.com', 'https:', null],
      ['http://192.0.2.1', 'http://192.0.2.1', '192.0.2.1', 'http:', null],
      ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000', '127.0.0.1', 'http:', 3000],
      ['http://[2001:DB8::1]:8080', 'http://[2001:db8::1]:8080', '[2001:db8::1]', 'http:', 8080],
      ['https://[::ffff:127.0.0.1]', 'https://[::ffff:7f00:1]', '[::ffff:7f00:1]', 'https:', null],
      [`https://${'a'.repeat(63)}.com`, `https://${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`, 'https:', null],
      ['https://example.com:1', 'https://example.com:1', 'example.com', 'https:', 1],
      ['https://example.com:65535', 'https://example.com:65535', 'example.com', 'https:', 65535],
      ['https://example.com:00443', 'https://example.com', 'example.com', 'https:', null],
      ['http://example.com:08080', 'http://example.com:8080', 'example.com', 'http:', 8080],
      ['http://0.0.0.0', 'http://0.0.0.0', '0.0.0.0', 'http:', null],
      ['https://bücher.123.de', 'https://xn--bcher-kva.123.de', 'xn--bcher-kva.123.de', 'https:', null],
      ['https://a1.b2.example', 'https://a1.b2.example', 'a1.b2.example', 'https:', null],
      ['http://255.255.255.255', 'http://255.255.255.255', '255.255.255.255', 'http:', null],
    ];
    for (const [input, origin, host, protocol, port] of good) {
      it(input, () => {
        assert.deepEqual(normalizeDomain(input), { origin, host, protocol, port });
      });
    }

    it('is idempotent on its own output', () => {
      for (const [input] of good) {
        const once = normalizeDomain(input).origin;
        assert.equal(normalizeDomain(once).origin, once);
      }
    });

    it('accepts a host of exactly 253 characters', () => {
      const host = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
      assert.equal(host.length, 253);
      assert.equal(normalizeDomain(`https://${host}`).host, host);
    });
  });

  describe('rejects', () => {
    it('non-strings', () => {
      for (const v of [undefined, null, 42, {}, ['https://example.com'], true]) {
        rejects(v, 'not_a_string', /^domain must be a string$/);
      }
    });
    it('empty', () => rejects('', 'empty', /empty/));
    it('too long', () => {
      rejects(`https://${'a'.repeat(3000)}.com`, 'too_long', /^domain is too long: at most 2048 characters$/);
      rejects(`https://${'a'.repeat(2049 - 'https://'.length)}`, 'too_long');
      // Exactly 2048 characters passes the length check and fails later, on the host.
      rejects(`https://${'a'.repeat(2048 - 'https://'.length)}`, 'invalid_host');
    });

    it('missing protocol', () => {
      for (const v of [
        'example.com',
        'www.example.com/',
        '//example.com',
        'example.com:8080',
        'localhost:3000',
        '127.0.0.1',
        '://example.com',
        '1https://example.com',
        '-http://example.com',
      ]) {
        rejects(v, 'missing_protocol', /missing a protocol: use https:\/\/example\.com/);
      }
    });
    it('scheme without // (WHATWG would repair it)', () => {
      rejects('https:example.com', 'missing_protocol', /must start with https:\/\//);
      rejects('http:/example.com', 'missing_protocol', /must start with http:\/\//);
    });
    it('unsupported protocols', () => {
      rejects('ftp://example.com', 'unsupported_protocol', /^unsupported protocol ftp:/);
      rejects('ws://example.com', 'unsupported_protocol', /unsupported protocol ws:/);
      rejects('file:///etc/passwd', 'unsupported_protocol', /unsupported protocol file:/);
      rejects('javascript:alert(1)', 'unsupported_protocol', /unsupported protocol javascript:/);
      rejects('mailto:a@example.com', 'unsupported_protocol', /unsupported protocol mailto:/);
    });
    it('whitespace anywhere (WHATWG would strip it)', () => {
      for (const v of [
        ' https://example.com',
        'https://example.com ',
        'http://exa mple.com',
        'https://exa\tmple.com',
        'https://example.com\n',
        'https://example.com\u00a0',
        'https://exa\u3000mple.com',
      ]) {
        rejects(v, 'whitespace', /whitespace/);
      }
    });
    it('control characters', () => rejects('https://exa\u0000mple.com', 'invalid_character', /control characters/));
    it('backslashes (WHATWG treats them as /)', () => {
      rejects('https://example.com\\path', 'invalid_character', /backslash/);
      rejects('https://evil.com\\@example.com', 'invalid_character', /backslash/);
      rejects('https:\\\\example.com', 'invalid_character', /backslash/);
    });
    it('credentials', () => {
      for (const v of [
        'https://user:pass@example.com',
        'https://user@example.com/',
        'https://@example.com',
        'https://example.com@evil.com',
      ]) {
        rejects(v, 'credentials', /must not contain credentials/);
      }
    });
    it('paths', () => {
      for (const v of [
        'https://example.com/about',
        'https://example.com//',
        'https://example.com/index.html',
        'https://example.com/a?b#c',
        'https://example.com/%2e%2e/',
      ]) {
        rejects(v, 'path', /must not contain a path/);
      }
    });
    it('query strings', () => {
      for (const v of [
        'https://example.com?a=1',
        'https://example.com/?a=1',
        'https://example.com?',
        'https://example.com/?#x',
      ]) {
        rejects(v, 'query', /must not contain a query string/);
      }
    });
    it('fragments', () => {
      for (const v of ['https://example.com#top', 'https://example.com/#', 'https://example.com#']) {
        rejects(v, 'fragment', /must not contain a fragment/);
      }
    });
    it('missing host', () => {
      for (const v of ['https://', 'https:///', 'https:///example.com', 'http://:8080', 'https://?x']) {
        rejects(v, 'missing_host', /missing a host/);
      }
    });
    it('bad ports', () => {
      for (const v of [
        'https://example.com:',
        'https://example.com:0',
        'https://example.com:65536',
        'https://example.com:99999',
        'https://example.com:-1',
        'https://example.com:80a',
        'https://example.com:a80',
        'https://example.com:123456',
        'https://example.com:000080',
        'https://example.com:+80',
        'https://example.com:1e3',
        'https://example.com:0x1bb',
        'https://example.com:80.0',
        'https://example.com:8_0',
        'https://example.com:٨٠',
      ]) {
        rejects(v, 'invalid_port', /port must be a number from 1 to 65535/);
      }
    });

    it('invalid host names', () => {
      const cases: Array<[string, RegExp]> = [
        ['https://localhost', /at least one dot/],
        ['http://intranet', /^host is not a valid domain name: it needs at least one dot, e\.g\. example\.com$/],
        ['http://intranet:8080/', /at least one dot/],
        ['http://intranet.', /must not end with a dot/],
        ['https://com', /at least one dot/],
        ['https://example.com.', /must not end with a dot/],
        ['https://a..example.com', /empty label/],
        ['https://.example.com', /empty label/],
        ['https://my_site.example.com', /label "my_site" contains an underscore/],
        [
          `https://${'a'.repeat(30)}_b.example.com`,
          /^host is not a valid domain name: label "a{24}…" contains an underscore$/,
        ],
        [`https://${'a'.repeat(23)}_.example.com`, /label "a{23}_" contains an underscore$/],
        [`https://${'a'.repeat(24)}_.example.com`, /label "a{24}…" contains an underscore$/],
        ['https://ü*.de', /^host is not a valid domain name: label "xn--\*-dha" contains "\*"$/],
        ['https://a1.2.3.4', /top-level domain "4" must contain only letters/],
        ['https://1a.2.3.4', /top-level domain "4" must contain only letters/],
        ['https://-example.com', /label "-example" must not start or end with a hyphen/],
        ['https://example-.com', /label "example-" must not start or end with a hyphen/],
        [`https://${'a'.repeat(64)}.com`, /longer than 63 characters/],
        [`https://${'abcdefghi.'.repeat(26)}com`, /longer than 253 characters/],
        ['https://example.c0m', /top-level domain "c0m" must contain only letters/],
        ['https://example.123', /top-level domain "123"/],
        ['https://example.0x1f', /top-level domain "0x1f"/],
        ['https://exa%6dple.com', /percent-encoding/],
        ['https://exa*mple.com', /contains "\*"/],
        ['https://example.com;x', /contains ";"/],
        ['https://exa<mple.com', /contains "</],
        ['https://xn--zz.com', /invalid xn-- \(punycode\) label/],
        ['https://a\u200db.com', /characters not allowed/],
        ['https://example.com:80:90', /more than one ":"/],
        ['https://::1', /IPv6 addresses must be enclosed in brackets/],
      ];
      for (const [v, msg] of cases) rejects(v, 'invalid_host', msg);
    });

    it('IPv4 spellings that WHATWG would reinterpret', () => {
      for (const v of [
        'http://127.1',
        'http://2130706433',
        'http://0x7f.0.0.1',
        'http://0177.0.0.1',
        'http://010.0.0.1',
        'http://1.2.3',
        'http://1.2.3.4.5',
        'http://256.1.1.1',
        'http://0x7f000001',
      ]) {
        rejects(v, 'invalid_host', /not a valid IPv4 address: write it as four numbers from 0 to 255/);
      }
      rejects('http://１２７.０.０.１', 'invalid_host', /ASCII digits/);
    });

    it('bad IPv6 literals', () => {
      rejects('http://[::1', 'invalid_host', /missing the closing \]/);
      rejects('http://[::1]x', 'invalid_host', /unexpected characters after \]/);
      rejects('http://[fe80::1%25eth0]', 'invalid_host', /zone identifier/);
      rejects('http://[2606:4700::11%25eth0]', 'invalid_host', /zone identifier/);
      rejects('http://[2606:4700::11', 'invalid_host', /missing the closing \]/);
      rejects('http://2606:4700::11]', 'invalid_host', /IPv6 addresses must be enclosed in brackets|more than one ":"/);
      rejects('http://[zz::1]', 'invalid_host', /not a valid IPv6 address/);
      rejects('http://[127.0.0.1]', 'invalid_host', /not a valid IPv6 address/);
    });
  });
});
