import assert from 'node:assert/strict';
import ipaddr from 'ipaddr.js';
import { loadConfig } from '../../src/config';
import {
  isAddressAllowed,
  isAddressInList,
  parseCidr,
  parseCidrList,
  parseCidrSetting,
} from '../../src/outbound/policy';

const NONE = parseCidrList(undefined);

function blocked(ip: string, reason: RegExp, allow = NONE): void {
  const v = isAddressAllowed(ip, allow);
  assert.equal(v.allowed, false, `${ip} should be blocked`);
  if (!v.allowed) assert.match(v.reason, reason, `${ip}: ${v.reason}`);
}
function allowed(ip: string, allow = NONE): void {
  const v = isAddressAllowed(ip, allow);
  assert.deepEqual(v, { allowed: true }, `${ip} should be allowed: ${JSON.stringify(v)}`);
}

describe('outbound policy', () => {
  describe('parseCidrList', () => {
    it('parses comma-separated CIDRs, trimming and skipping empties', () => {
      const list = parseCidrList(' 127.0.0.0/8, ::1/128 ,,10.1.2.3');
      assert.deepEqual(
        list.map((e) => e.text),
        ['127.0.0.0/8', '::1/128', '10.1.2.3'],
      );
      assert.deepEqual(
        list.map((e) => e.range[1]),
        [8, 128, 32],
      );
    });
    it('is empty for undefined or blank', () => {
      assert.equal(parseCidrList(undefined).length, 0);
      assert.equal(parseCidrList('').length, 0);
      assert.equal(parseCidrList(' , ').length, 0);
    });
    it('throws on malformed entries, naming them', () => {
      for (const bad of [
        '127.0.0.0/33',
        'banana',
        '127.1/8',
        '10.0.0.0/',
        '10.0.0.0/x',
        '::1/129',
        '0x7f.0.0.1/8',
        'fe80::1%eth0/64',
      ]) {
        assert.throws(
          () => parseCidrList(`127.0.0.0/8,${bad}`),
          (e: Error) => e.message.includes(`"${bad}"`),
        );
      }
    });
    it('refuses prefix lengths that are not plain decimal, with the reason', () => {
      for (const bad of [
        '10.0.0.0/8x',
        '10.0.0.0/08',
        '10.0.0.0/+8',
        '10.0.0.0/8.0',
        '10.0.0.0/0x8',
        '10.0.0.0/1e1',
        '10.0.0.0/ 8',
        '10.0.0.0/-1',
        '10.0.0.0/8/8',
        '::/0128',
      ]) {
        assert.throws(() => parseCidr(bad), { message: `invalid CIDR "${bad}" in allow list: bad prefix length` }, bad);
      }
    });
    it('refuses prefixes longer than the family, accepting both bounds', () => {
      assert.throws(() => parseCidr('10.0.0.0/33'), {
        message: 'invalid CIDR "10.0.0.0/33" in allow list: prefix longer than 32',
      });
      assert.throws(() => parseCidr('::/129'), {
        message: 'invalid CIDR "::/129" in allow list: prefix longer than 128',
      });
      assert.throws(() => parseCidr('::/999'), /prefix longer than 128/);
      assert.deepEqual(parseCidr('10.0.0.0/32').map(String), ['10.0.0.0', '32']);
      assert.deepEqual(parseCidr('0.0.0.0/0').map(String), ['0.0.0.0', '0']);
      assert.deepEqual(parseCidr('::/128').map(String), ['::', '128']);
      assert.deepEqual(parseCidr('2001:db8::/0').map(String), ['2001:db8::', '0']);
    });
    it('refuses what is not an address, naming it', () => {
      for (const bad of ['', '/8', 'banana/8', '[::1]/128', '::1%lo/128', 'fe80::1%eth0', '1.2.3.4.5/8', '10.0.0/8']) {
        assert.throws(() => parseCidr(bad), { message: `invalid CIDR "${bad}" in allow list: not an IP address` }, bad);
      }
    });
    it('takes IPv4-mapped ranges of /96 and longer as IPv4, and refuses shorter ones', () => {
      assert.deepEqual(parseCidr('::ffff:0:0/96').map(String), ['0.0.0.0', '0']);
      assert.deepEqual(parseCidr('::ffff:10.0.0.0/104').map(String), ['10.0.0.0', '8']);
      assert.deepEqual(parseCidr('::ffff:10.1.2.3').map(String), ['10.1.2.3', '32']);
      for (const bad of ['::ffff:0:0/95', '::ffff:10.0.0.0/64', '::ffff:0:0/0']) {
        assert.throws(() => parseCidr(bad), {
          message: `invalid CIDR "${bad}" in allow list: an IPv4-mapped range must be /96 or longer; write the IPv4 range`,
        });
      }
      // Not IPv4-mapped (the range only overlaps the mapped block): stays IPv6.
      assert.equal(parseCidr('::fffe:0:0/95')[0].kind(), 'ipv6');
    });
    it('reads IPv4-compatible and NAT64 dotted forms as IPv6, not as IPv4-mapped', () => {
      assert.deepEqual(parseCidr('::127.0.0.1').map(String), ['::7f00:1', '128']);
      assert.deepEqual(parseCidr('64:ff9b::10.0.0.1/120').map(String), ['64:ff9b::a00:1', '120']);
    });
    it('checks OUTBOUND_ALLOW_CIDRS when the configuration loads', () => {
      assert.deepEqual(parseCidrSetting('X', undefined), []);
      assert.deepEqual(parseCidrSetting('X', ''), []);
      assert.deepEqual(parseCidrSetting('X', ' , '), []);
      assert.deepEqual(
        parseCidrSetting('X', '127.0.0.0/8, ::1').map((entry) => entry.text),
        ['127.0.0.0/8', '::1'],
      );
      assert.throws(() => parseCidrSetting('X', '127.0.0.0/8,10.0.0.0/8x'), {
        message: 'X: invalid CIDR "10.0.0.0/8x" in allow list: bad prefix length',
      });
      assert.throws(
        () => loadConfig({ OUTBOUND_ALLOW_CIDRS: '::ffff:0:0/95' }),
        /^Error: OUTBOUND_ALLOW_CIDRS: invalid CIDR "::ffff:0:0\/95"/,
      );
    });
    it('parses OUTBOUND_ALLOW_CIDRS once, into the configuration', () => {
      assert.deepEqual(
        loadConfig({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }).outboundAllow.map((entry) => entry.text),
        ['127.0.0.0/8'],
      );
      assert.deepEqual(loadConfig({}).outboundAllow, []);
    });
  });

  describe('blocks IPv4 special ranges', () => {
    const cases: Array<[string, RegExp]> = [
      ['0.0.0.0', /unspecified/],
      ['0.1.2.3', /unspecified.*0\.0\.0\.0\/8/],
      ['10.0.0.1', /private.*10\.0\.0\.0\/8/],
      ['10.255.255.255', /private/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['100.100.100.200', /carrier-grade NAT/], // Alibaba Cloud metadata
      ['100.127.255.255', /carrier-grade NAT/],
      ['127.0.0.1', /loopback.*127\.0\.0\.0\/8/],
      ['127.255.255.254', /loopback/],
      ['169.254.169.254', /cloud metadata/],
      ['169.254.0.1', /link-local/],
      ['172.16.0.1', /private.*172\.16\.0\.0\/12/],
      ['172.31.255.255', /private/],
      ['192.0.0.8', /IETF protocol assignment/],
      ['192.0.2.10', /documentation.*TEST-NET-1/],
      ['192.88.99.1', /6to4 relay/],
      ['192.168.1.1', /private.*192\.168\.0\.0\/16/],
      ['198.18.0.1', /benchmarking/],
      ['198.19.255.255', /benchmarking/],
      ['198.51.100.7', /TEST-NET-2/],
      ['203.0.113.9', /TEST-NET-3/],
      ['224.0.0.1', /multicast/],
      ['239.255.255.250', /multicast/],
      ['240.0.0.1', /reserved/],
      ['255.255.255.255', /broadcast/],
    ];
    for (const [ip, reason] of cases) it(ip, () => blocked(ip, reason));
  });

  describe('allows public IPv4', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.215.14',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '169.253.255.255',
      '192.0.1.255',
      '198.17.255.255',
      '223.255.255.255',
    ]) {
      it(ip, () => allowed(ip));
    }
  });

  describe('blocks IPv6 special ranges', () => {
    const cases: Array<[string, RegExp]> = [
      ['::', /unspecified/],
      ['::1', /loopback/],
      ['[::1]', /loopback/],
      ['fc00::1', /unique local/],
      ['fd00:ec2::254', /unique local/], // AWS IPv6 metadata
      ['fdff:ffff::1', /unique local/],
      ['fe80::1', /link-local/],
      ['febf::1', /link-local/],
      ['fe80::1%eth0', /link-local|zone/],
      ['fec0::1', /site-local/],
      ['ff02::1', /multicast/],
      ['ff05::2', /multicast/],
      ['2001:db8::1', /documentation/],
      ['3fff::1', /documentation/],
      ['2001::1', /IETF protocol assignment/], // Teredo
      ['2001:2::1', /IETF protocol assignment/], // benchmarking
      ['100::1', /discard-only/],
      ['64:ff9b:1::a00:1', /local-use NAT64/],
      ['5f00::1', /SRv6/],
      ['4000::1', /reserved.*2000::\/3/],
      ['::2:1', /IPv4-compatible/],
    ];
    for (const [ip, reason] of cases) it(ip, () => blocked(ip, reason));
  });

  describe('judges IPv6 forms that embed IPv4 by the embedded address', () => {
    const cases: Array<[string, RegExp]> = [
      ['::ffff:127.0.0.1', /IPv4-mapped form of 127\.0\.0\.1: loopback/],
      ['::ffff:7f00:1', /IPv4-mapped form of 127\.0\.0\.1: loopback/],
      ['::FFFF:169.254.169.254', /IPv4-mapped form of 169\.254\.169\.254: cloud metadata/],
      ['::ffff:10.0.0.1', /IPv4-mapped.*private/],
      ['::ffff:192.168.0.1', /IPv4-mapped.*private/],
      ['::ffff:0.0.0.0', /IPv4-mapped.*unspecified/],
      ['::ffff:0:10.0.0.1', /IPv4-translated form of 10\.0\.0\.1/],
      ['::127.0.0.1', /IPv4-compatible form of 127\.0\.0\.1: loopback/],
      ['::10.0.0.1', /IPv4-compatible.*private/],
      ['64:ff9b::127.0.0.1', /NAT64 form of 127\.0\.0\.1/],
      ['64:ff9b::a9fe:a9fe', /NAT64 form of 169\.254\.169\.254: cloud metadata/],
      ['2002:7f00:1::', /6to4 form of 127\.0\.0\.1/],
      ['2002:a00:1::1', /6to4 form of 10\.0\.0\.1/],
      ['2002:c0a8:101::1', /6to4 form of 192\.168\.1\.1/],
    ];
    for (const [ip, reason] of cases) it(ip, () => blocked(ip, reason));

    it('reads every octet of a dotted IPv4-compatible tail', () => {
      blocked('::10.20.30.40', /^IPv4-compatible form of 10\.20\.30\.40: private/);
      blocked('::ffff:10.20.30.40', /^IPv4-mapped form of 10\.20\.30\.40: private/);
    });

    it('recognises only the exact prefixes of each form', () => {
      // Look-alikes of NAT64 (64:ff9b::/96) and IPv4-translated (::ffff:0:0:0/96) are plain reserved space.
      for (const ip of [
        '65:ff9b::808:808',
        '64:ff9a::808:808',
        '64:1::808:808',
        '64:ff9b:0:0:1::808:808',
        '::ffff:1:808:808',
      ]) {
        blocked(ip, /^reserved address \(outside global unicast 2000::\/3\)$/);
      }
    });

    it('allows them when the embedded address is public', () => {
      for (const ip of ['::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1']) allowed(ip);
    });
  });

  describe('allows global unicast IPv6', () => {
    for (const ip of ['2606:4700:4700::1111', '2a00:1450:4001:82b::200e', '2001:4860:4860::8888', '[2606:4700::1]']) {
      it(ip, () => allowed(ip));
    }
  });

  it('refuses anything that is not a canonical IP address', () => {
    for (const ip of [
      '',
      'example.com',
      '127.1',
      '2130706433',
      '0x7f.0.0.1',
      '0177.0.0.1',
      '1.2.3.4.5',
      '256.0.0.1',
      '::ffff:127.1',
      '[127.0.0.1]',
    ]) {
      blocked(ip, /not a valid IP address/);
    }
  });

  describe('allow list exemptions', () => {
    const loopback = parseCidrList('127.0.0.0/8');
    it('exempts the listed range', () => {
      allowed('127.0.0.1', loopback);
      allowed('127.1.2.3', loopback);
    });
    it('exempts the listed range written in IPv4-mapped form', () => {
      allowed('::ffff:127.0.0.1', loopback);
      allowed('::ffff:7f00:1', loopback);
    });
    it('does not exempt anything else', () => {
      blocked('10.0.0.1', /private/, loopback);
      blocked('169.254.169.254', /metadata/, loopback);
      blocked('::1', /loopback/, loopback);
      blocked('::ffff:10.0.0.1', /IPv4-mapped.*private/, loopback);
    });
    it('does not exempt tunnel forms of an exempted IPv4 range', () => {
      blocked('64:ff9b::127.0.0.1', /NAT64/, loopback);
      blocked('2002:7f00:1::', /6to4/, loopback);
    });
    it('takes IPv4-mapped CIDRs as IPv4 ranges', () => {
      const mapped = parseCidrList('::ffff:127.0.0.0/104');
      allowed('127.0.0.1', mapped);
      allowed('::ffff:127.0.0.1', mapped);
      assert.equal(mapped[0].range[0].kind(), 'ipv4');
      assert.equal(mapped[0].range[1], 8);
      blocked('10.0.0.1', /private/, mapped);
    });
    it('exempts IPv6 ranges and single addresses', () => {
      allowed('::1', parseCidrList('::1/128'));
      allowed('fd12::5', parseCidrList('fd00::/8'));
      blocked('fe80::1', /link-local/, parseCidrList('fd00::/8'));
      allowed('10.1.2.3', parseCidrList('10.1.2.3'));
      blocked('10.1.2.4', /private/, parseCidrList('10.1.2.3'));
    });
    it('never lets an IPv6 entry exempt IPv4-mapped addresses', () => {
      blocked('::ffff:10.0.0.1', /IPv4-mapped form of 10\.0\.0\.1: private/, parseCidrList('::/0'));
      blocked('::ffff:169.254.169.254', /cloud metadata/, parseCidrList('::fffe:0:0/95'));
      blocked('::ffff:127.0.0.1', /loopback/, parseCidrList('::/64'));
      allowed('::ffff:10.0.0.1', parseCidrList('10.0.0.0/8'));
      allowed('::ffff:10.0.0.1', parseCidrList('::ffff:10.0.0.0/104'));
    });
    it('never exempts a zone id, not even with ::/0', () => {
      blocked('2606:4700::11%eth0', /^scoped \(zone id\) address$/);
      blocked('2606:4700::11%eth0', /zone id/, parseCidrList('::/0'));
      blocked('fe80::1%1', /zone id/, parseCidrList('fe80::/10'));
      allowed('fe80::1', parseCidrList('fe80::/10'));
    });
    it('refuses half-bracketed and bracketed IPv4 forms', () => {
      for (const ip of ['[2606:4700::11', '2606:4700::11]', '[[2606:4700::11]]', '[10.0.0.1]', '[]'])
        blocked(ip, /not a valid IP address/);
      blocked('[::1]', /loopback/);
      allowed('[::1]', parseCidrList('::1'));
    });
    it('isAddressInList matches only ranges of the same family', () => {
      const list = parseCidrList('10.0.0.0/8, 2001:db8::/32');
      assert.equal(isAddressInList(ipaddr.parse('10.255.255.255'), list), true);
      assert.equal(isAddressInList(ipaddr.parse('11.0.0.0'), list), false);
      assert.equal(isAddressInList(ipaddr.parse('2001:db8:ffff::1'), list), true);
      assert.equal(isAddressInList(ipaddr.parse('2001:db9::'), list), false);
      assert.equal(isAddressInList(ipaddr.parse('::ffff:10.0.0.1'), list), false);
      assert.equal(isAddressInList(ipaddr.parse('10.0.0.1'), []), false);
    });
    it('never matches across families', () => {
      blocked('::1', /loopback/, parseCidrList('0.0.0.0/0'));
      blocked('127.0.0.1', /loopback/, parseCidrList('::/0'));
    });
  });
});
