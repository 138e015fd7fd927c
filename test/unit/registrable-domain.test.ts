import assert from 'node:assert/strict';
import { normalizeDomain } from '../../src/audits/domain';
import { registrableDomain, siteOfUrl } from '../../src/registrable-domain';
import { sameSite } from '../../src/analyzers/site-util';
import type { CrawlSnapshot } from '../../src/analyzers/snapshot';

describe('registrableDomain: the one "same site" rule', () => {
  const cases: Array<[string, string]> = [
    ['example.com', 'example.com'],
    ['www.example.com', 'example.com'],
    ['a.b.c.example.com', 'example.com'],
    ['WWW.Example.COM', 'example.com'],
    ['www.example.com.', 'example.com'],
    ['www.example.co.uk', 'example.co.uk'],
    ['shop.example.com.au', 'example.com.au'],
    // private section of the PSL: each user's site is its own registrable domain
    ['alice.github.io', 'alice.github.io'],
    ['www.alice.github.io', 'alice.github.io'],
    ['foo.blogspot.com', 'foo.blogspot.com'],
    ['www.bücher.de', 'xn--bcher-kva.de'],
    ['xn--r8jz45g.xn--zckzah', 'xn--r8jz45g.xn--zckzah'],
    // a public suffix itself has no eTLD+1: it is its own site
    ['co.uk', 'co.uk'],
    ['github.io', 'github.io'],
    // IP literals: canonical address
    ['192.0.2.1', '192.0.2.1'],
    ['[2001:db8::1]', '[2001:db8::1]'],
    ['[2001:DB8:0:0:0:0:0:1]', '[2001:db8::1]'],
    ['2001:db8::1', '[2001:db8::1]'],
    ['[::ffff:192.0.2.1]', '192.0.2.1'],
    ['[::ffff:c000:201]', '192.0.2.1'],
  ];
  for (const [host, expected] of cases) {
    it(`${host} → ${expected}`, () => assert.equal(registrableDomain(host), expected));
  }

  it('accepts what normalizeDomain produces', () => {
    assert.equal(registrableDomain(normalizeDomain('https://www.bücher.de').host), 'xn--bcher-kva.de');
    assert.equal(registrableDomain(normalizeDomain('http://[2001:0DB8::0001]:8080').host), '[2001:db8::1]');
  });

  it('reads the site of URLs and origins: scheme, port, www. and sub-domains do not matter', () => {
    const sites = [
      'https://example.com',
      'http://example.com:8080',
      'https://www.example.com/a?b',
      'http://blog.shop.example.com',
    ].map(siteOfUrl);
    assert.deepEqual(new Set(sites), new Set(['example.com']));
    assert.notEqual(siteOfUrl('https://a.github.io'), siteOfUrl('https://b.github.io'));
    assert.equal(siteOfUrl('not a url'), null);
  });

  it('is the rule the analyzers use (a.github.io and b.github.io are two sites)', () => {
    const snapshot = { origin: 'https://a.github.io' } as CrawlSnapshot;
    assert.equal(sameSite(snapshot, 'https://www.a.github.io/page'), true);
    assert.equal(sameSite(snapshot, 'https://b.github.io/page'), false);
    assert.equal(
      sameSite({ origin: 'https://www.example.com' } as CrawlSnapshot, 'http://cdn.example.com:81/x.js'),
      true,
    );
  });
});
