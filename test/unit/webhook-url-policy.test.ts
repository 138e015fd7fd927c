import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors';
import { parseCidrList } from '../../src/outbound/policy';
import { HOST_REFUSED, type RefusalLog } from '../../src/outbound/refusal';
import type { LookupAllFn } from '../../src/outbound/resolve';
import { checkWebhookUrl } from '../../src/outbound/url-policy';
import { ADDRESS_PATTERN } from '../support/addresses';

const NONE = parseCidrList(undefined);

/** hooks.example.com is public; internal.example.com is private; nothing else resolves. */
function dns(): LookupAllFn & { calls: string[] } {
  const calls: string[] = [];
  const lookup: LookupAllFn = async (host) => {
    calls.push(host);
    if (host === 'hooks.example.com') return [{ address: '93.184.215.14', family: 4 }];
    if (host === 'internal.example.com') return [{ address: '10.9.8.7', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  return Object.assign(lookup, { calls });
}

async function refusal(raw: string, opts: { lookup?: LookupAllFn; log?: RefusalLog } = {}): Promise<ApiError> {
  const err = await checkWebhookUrl('url', raw, NONE, { lookup: dns(), log: () => undefined, ...opts }).then(
    () => assert.fail(`${raw} should be refused`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, 'invalid_request');
  return err;
}

describe('webhook URL policy', () => {
  it('accepts public http(s) URLs and returns them serialized', async () => {
    const lookup = dns();
    assert.equal(
      await checkWebhookUrl('url', 'https://hooks.example.com/in?x=1', NONE, { lookup }),
      'https://hooks.example.com/in?x=1',
    );
    assert.equal(
      await checkWebhookUrl('url', 'HTTP://Hooks.Example.com', NONE, { lookup }),
      'http://hooks.example.com/',
    );
    assert.equal(
      await checkWebhookUrl('url', 'https://93.184.215.14:8443/h', NONE, { lookup }),
      'https://93.184.215.14:8443/h',
    );
    assert.deepEqual(lookup.calls, ['hooks.example.com', 'hooks.example.com']);
  });

  it('refuses what is not an absolute http(s) URL without credentials, naming the field', async () => {
    assert.equal((await refusal('not a url')).message, 'field url must be an absolute http:// or https:// URL');
    assert.equal(
      (await refusal('ftp://hooks.example.com/')).message,
      'field url must use http:// or https://, not ftp:',
    );
    assert.equal(
      (await refusal('https://user:pw@hooks.example.com/')).message,
      'field url must not contain credentials',
    );
    assert.equal((await refusal('https://user@hooks.example.com/')).message, 'field url must not contain credentials');
    assert.equal((await refusal('https://:pw@hooks.example.com/')).message, 'field url must not contain credentials');
  });

  it('refuses single-label hosts before any lookup', async () => {
    const lookup = dns();
    for (const raw of ['http://intranet/hook', 'https://intranet./hook', 'http://localhost:8080/', 'http://INTRANET']) {
      const err = await refusal(raw, { lookup });
      assert.equal(err.message, 'field url must name a host with a domain, e.g. https://hooks.example.com/…', raw);
    }
    assert.deepEqual(lookup.calls, []);
  });

  it('does not take IP literals for single-label names', async () => {
    assert.equal(
      await checkWebhookUrl('url', 'http://[2606:4700::1111]/h', NONE, { lookup: dns() }),
      'http://[2606:4700::1111]/h',
    );
    assert.equal(await checkWebhookUrl('url', 'http://8.8.8.8/h', NONE, { lookup: dns() }), 'http://8.8.8.8/h');
  });

  it('says only that the host may not be contacted: no address, NXDOMAIN and blocked alike', async () => {
    const logged: string[] = [];
    const log: RefusalLog = (entry) => logged.push(`${entry.kind} ${entry.detail}`);
    const messages = new Set<string>();
    for (const raw of [
      'http://internal.example.com/h',
      'http://no-such-host.example.com/h',
      'http://10.1.2.3/h',
      'http://127.0.0.1:3000/h',
      'http://169.254.169.254/latest',
      'http://[::1]/h',
      'http://[::ffff:10.1.2.3]/h',
      'http://2130706433/h', // WHATWG reads it as 127.0.0.1
    ]) {
      const err = await refusal(raw, { log });
      assert.doesNotMatch(err.message, ADDRESS_PATTERN, raw);
      messages.add(err.message);
    }
    assert.deepEqual([...messages], [`field url cannot receive webhooks: ${HOST_REFUSED}`]);
    assert.match(logged[0], /^blocked_address 10\.9\.8\.7 \(private/);
    assert.match(logged[1], /^dns DNS lookup of no-such-host\.example\.com failed \(ENOTFOUND\)/);
    assert.equal(logged.length, 8);
  });

  it('honours the allow list', async () => {
    assert.equal(
      await checkWebhookUrl('url', 'http://127.0.0.1:3000/h', parseCidrList('127.0.0.0/8')),
      'http://127.0.0.1:3000/h',
    );
  });
});
