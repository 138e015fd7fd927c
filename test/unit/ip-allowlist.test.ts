import assert from 'node:assert/strict';
import { ipAllowed, parseAllowlist } from '../../src/accounts/ip-allowlist';

describe('key IP allowlists', () => {
  describe('parseAllowlist', () => {
    it('stores entries as canonical address/bits, trimmed; a bare address is one host', () => {
      assert.deepEqual(parseAllowlist([' 203.0.113.0/24 ', '2001:DB8:0::/32', '198.51.100.7', '2001:db8::1']), [
        '203.0.113.0/24',
        '2001:db8::/32',
        '198.51.100.7/32',
        '2001:db8::1/128',
      ]);
    });

    it('stores an IPv4-mapped entry as the IPv4 range it means', () => {
      assert.deepEqual(parseAllowlist(['::ffff:203.0.113.0/120', '::ffff:198.51.100.7']), [
        '203.0.113.0/24',
        '198.51.100.7/32',
      ]);
    });

    it('accepts the prefix-length boundaries of each family', () => {
      assert.deepEqual(parseAllowlist(['0.0.0.0/0', '10.1.2.3/32', '::/0', '::1/128']), [
        '0.0.0.0/0',
        '10.1.2.3/32',
        '::/0',
        '::1/128',
      ]);
    });

    it('refuses malformed entries, naming them', () => {
      for (const bad of [
        '10.0.0.0/8x',
        '10.0.0.0/08',
        '10.0.0.0/+8',
        '10.0.0.0/8.0',
        '10.0.0.0/0x8',
        '10.0.0.0/1e1',
        '10.0.0.0/',
        '10.0.0.0/33',
        '2001:db8::/129',
        '::ffff:0:0/95',
        '127.1',
        '0x7f.0.0.1',
        '010.0.0.1/8',
        'fe80::1%eth0',
        '[2001:db8::1]',
        'example.com',
        '',
      ]) {
        assert.throws(
          () => parseAllowlist(['203.0.113.0/24', bad]),
          (e: Error) => e.message.includes(`"${bad}"`),
          bad,
        );
      }
    });
  });

  describe('ipAllowed', () => {
    const list = parseAllowlist(['203.0.113.0/24', '2001:db8:1::/48', '198.51.100.7']);

    it('admits addresses inside a range, up to its edges', () => {
      for (const ip of [
        '203.0.113.0',
        '203.0.113.255',
        '198.51.100.7',
        '2001:db8:1::',
        '2001:db8:1:ffff:ffff:ffff:ffff:ffff',
      ]) {
        assert.equal(ipAllowed(ip, list), true, ip);
      }
    });

    it('refuses addresses just outside, and across families', () => {
      for (const ip of [
        '203.0.112.255',
        '203.0.114.0',
        '198.51.100.8',
        '2001:db8:2::',
        '2001:db8::1',
        '::ffff:198.51.100.8',
      ]) {
        assert.equal(ipAllowed(ip, list), false, ip);
      }
      assert.equal(ipAllowed('::1', parseAllowlist(['0.0.0.0/0'])), false);
      assert.equal(ipAllowed('127.0.0.1', parseAllowlist(['::/0'])), false);
    });

    it('takes an IPv4-mapped client (dual-stack socket) as its IPv4 address', () => {
      assert.equal(ipAllowed('::ffff:203.0.113.9', list), true);
      assert.equal(ipAllowed('::ffff:cb00:7109', list), true);
      assert.equal(ipAllowed('::ffff:203.0.113.9', parseAllowlist(['::ffff:203.0.113.0/120'])), true);
    });

    it('never lets an IPv6 range admit every IPv4 client', () => {
      assert.equal(ipAllowed('::ffff:10.0.0.1', parseAllowlist(['::/0'])), false);
      assert.equal(ipAllowed('::ffff:10.0.0.1', parseAllowlist(['::fffe:0:0/95'])), false);
    });

    it('refuses client strings that are not plain addresses', () => {
      for (const ip of [
        '',
        'unknown',
        '203.0.113.9/24',
        '203.0.113',
        '0xcb.0.113.9',
        '[2001:db8:1::1]',
        '2001:db8:1::1%eth0',
        ' 203.0.113.9',
      ]) {
        assert.equal(ipAllowed(ip, list), false, JSON.stringify(ip));
      }
    });

    it('fails closed when a stored entry does not parse', () => {
      assert.equal(ipAllowed('203.0.113.9', ['203.0.113.0/24x']), false);
      assert.equal(ipAllowed('203.0.113.9', ['garbage', '203.0.113.0/24']), false);
    });

    it('admits nobody with an empty list', () => {
      assert.equal(ipAllowed('203.0.113.9', []), false);
    });
  });
});
