import assert from 'node:assert/strict';
import { parseCidrList } from '../../src/outbound/policy';
import { HOST_REFUSED, hostRefusal, type RefusalLog } from '../../src/outbound/refusal';
import { resolveAllowed, type LookupAllFn } from '../../src/outbound/resolve';
import { logger } from '../../src/observability/logger';
import { ADDRESS_PATTERN } from '../support/addresses';

const NONE = parseCidrList(undefined);

/** An internal resolver: each name answers with the listed addresses, unknown names NXDOMAIN. */
const internalDns: LookupAllFn = async (host) => {
  const answers: Record<string, string[]> = {
    'private.corp.example': ['10.1.2.3'],
    'loopback.corp.example': ['127.0.0.1', '::1'],
    'metadata.corp.example': ['169.254.169.254'],
    'mapped.corp.example': ['::ffff:192.168.0.10'],
    'unique-local.corp.example': ['fd00:ec2::254'],
  };
  const list = answers[host];
  if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

async function refusalOf(host: string): Promise<{ message: string; logged: Parameters<RefusalLog>[0][] }> {
  const logged: Parameters<RefusalLog>[0][] = [];
  const err = await resolveAllowed(host, NONE, { lookup: internalDns }).then(
    () => assert.fail(`${host} should be refused`),
    (e: unknown) => e,
  );
  return { message: hostRefusal(err, (entry) => logged.push(entry)), logged };
}

describe('host refusals', () => {
  const cases: Array<[string, RegExp]> = [
    ['private.corp.example', /10\.1\.2\.3 \(private network address/],
    ['loopback.corp.example', /127\.0\.0\.1 \(loopback.*::1 \(loopback/],
    ['metadata.corp.example', /169\.254\.169\.254 \(cloud metadata endpoint/],
    ['mapped.corp.example', /::ffff:192\.168\.0\.10 \(IPv4-mapped form of 192\.168\.0\.10: private/],
    ['unique-local.corp.example', /fd00:ec2::254 \(unique local address/],
    ['10.1.2.3', /10\.1\.2\.3 \(private/],
    ['[::ffff:169.254.169.254]', /IPv4-mapped form of 169\.254\.169\.254: cloud metadata/],
    ['[fe80::1%eth0]', /zone id/],
  ];
  for (const [host, detail] of cases) {
    it(`${host}: the client learns no address, the server log gets them with the rule`, async () => {
      const { message, logged } = await refusalOf(host);
      assert.equal(message, HOST_REFUSED);
      assert.doesNotMatch(message, ADDRESS_PATTERN);
      assert.equal(logged.length, 1);
      assert.equal(logged[0].msg, 'outbound host refused');
      assert.equal(logged[0].kind, 'blocked_address');
      assert.equal(logged[0].host, host.startsWith('[') ? host.slice(1, -1) : host);
      assert.match(logged[0].detail, detail);
    });
  }

  it('a name that does not resolve gets the very same words; its DNS error goes to the log', async () => {
    const nxdomain = await refusalOf('no-such-host.corp.example');
    const blocked = await refusalOf('private.corp.example');
    assert.equal(nxdomain.message, blocked.message);
    assert.equal(nxdomain.message, 'the host does not resolve, or resolves to an address that may not be contacted');
    assert.deepEqual(nxdomain.logged, [
      {
        msg: 'outbound host refused',
        host: 'no-such-host.corp.example',
        kind: 'dns',
        detail: 'DNS lookup of no-such-host.corp.example failed (ENOTFOUND)',
      },
    ]);
  });

  it('half-bracketed and bracketed non-IPv6 hosts are refused before any lookup', async () => {
    let lookups = 0;
    const counting: LookupAllFn = async (host, options) => {
      lookups++;
      return internalDns(host, options);
    };
    for (const host of ['[2606:4700::11', '2606:4700::11]', '[127.0.0.1]', '[example.com]', 'exa]mple.com']) {
      const err = await resolveAllowed(host, NONE, { lookup: counting }).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err, `${host} should be refused`);
      assert.equal(
        hostRefusal(err, () => undefined),
        HOST_REFUSED,
        host,
      );
    }
    assert.equal(lookups, 0);
  });

  it('logs through the process logger by default, at warn', async () => {
    const err = await resolveAllowed('10.1.2.3', NONE).catch((e: unknown) => e);
    const original = logger.warn;
    const calls: unknown[][] = [];
    logger.warn = ((...args: unknown[]) => calls.push(args)) as typeof logger.warn;
    try {
      assert.equal(hostRefusal(err), HOST_REFUSED);
    } finally {
      logger.warn = original;
    }
    assert.deepEqual(calls, [
      [
        {
          host: '10.1.2.3',
          kind: 'blocked_address',
          detail: '10.1.2.3 (private network address (RFC 1918) (10.0.0.0/8))',
        },
        'outbound host refused',
      ],
    ]);
  });

  it('rethrows anything that is not a refusal: a fault is no answer to the client', () => {
    const fault = new TypeError('boom');
    assert.throws(
      () => hostRefusal(fault, () => assert.fail('must not log')),
      (e: unknown) => e === fault,
    );
  });
});
