import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors';
import { retryAfterMs } from '../../src/notifications/send';
import { checkChannelTarget, checkEmailAddress } from '../../src/notifications/targets';
import { parseCidrList } from '../../src/outbound/policy';
import type { LookupAllFn } from '../../src/outbound/resolve';

const NONE = parseCidrList(undefined);
const LOOPBACK = parseCidrList('127.0.0.0/8');

/** hooks.slack.com is public; relay.example.com is loopback; intranet.example.com private; nothing else resolves. */
const lookup: LookupAllFn = async (host) => {
  if (host === 'hooks.slack.com') return [{ address: '34.0.0.10', family: 4 }];
  if (host === 'relay.example.com') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'intranet.example.com') return [{ address: '10.1.2.3', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => assert.fail('should be refused'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError && err.code === 'invalid_request', String(err));
  return err.message;
}

describe('notification channel targets', () => {
  it('takes one plain e-mail address, its domain in ASCII', () => {
    assert.equal(checkEmailAddress('Ops.Team+audits@Example.COM'), 'Ops.Team+audits@example.com');
    assert.equal(checkEmailAddress('ops@bücher.example'), 'ops@xn--bcher-kva.example');
    for (const bad of [
      'ops',
      'ops@localhost',
      '@example.com',
      'ops@example..com',
      '.ops@example.com',
      'o..ps@example.com',
      'a b@example.com',
      'Ops <ops@example.com>',
      'ops@example.com, other@example.com',
      '"ops"@example.com',
      'ops@-example.com',
      `${'a'.repeat(65)}@example.com`,
      `ops@${'a'.repeat(250)}.com`,
    ])
      assert.throws(
        () => checkEmailAddress(bad),
        (err: unknown) =>
          err instanceof ApiError && err.message === 'field target must be an e-mail address for type email',
        bad,
      );
  });

  it('takes https incoming-webhook URLs that pass the outbound policy', async () => {
    assert.equal(
      await checkChannelTarget('slack', 'https://hooks.slack.com/services/T0/B0/x', NONE, { lookup }),
      'https://hooks.slack.com/services/T0/B0/x',
    );
    assert.equal(
      await checkChannelTarget('email', 'ops@example.com', NONE, { lookup }),
      'ops@example.com',
      'an e-mail address is not resolved',
    );
  });

  it('refuses plain http on the internet, private addresses, and what is no URL', async () => {
    assert.equal(
      await refusal(checkChannelTarget('slack', 'http://hooks.slack.com/services/x', LOOPBACK, { lookup })),
      'field target must be an https:// URL (Slack incoming webhooks are)',
    );
    assert.equal(
      await refusal(checkChannelTarget('teams', 'http://hooks.slack.com/x', NONE, { lookup })),
      'field target must be an https:// URL (Teams incoming webhooks are)',
    );
    assert.match(
      await refusal(
        checkChannelTarget('teams', 'https://intranet.example.com/hook', NONE, { lookup, log: () => undefined }),
      ),
      /^field target cannot receive webhooks: /,
    );
    assert.match(
      await refusal(checkChannelTarget('slack', 'ops@example.com', NONE, { lookup })),
      /^field target must be an absolute http:\/\/ or https:\/\/ URL/,
    );
  });

  it('takes plain http only to an address the operator exempted (OUTBOUND_ALLOW_CIDRS)', async () => {
    assert.equal(
      await checkChannelTarget('teams', 'http://relay.example.com:8080/hook', LOOPBACK, { lookup }),
      'http://relay.example.com:8080/hook',
    );
    assert.equal(
      await checkChannelTarget('slack', 'http://127.0.0.1:9/hook', LOOPBACK, { lookup }),
      'http://127.0.0.1:9/hook',
    );
  });

  it("reads a 429's Retry-After as seconds or an HTTP date, within six hours", () => {
    const now = new Date('2026-11-20T09:00:00.000Z');
    assert.equal(retryAfterMs('30', now), 30_000);
    assert.equal(retryAfterMs(['2'], now), 2_000);
    assert.equal(retryAfterMs('Fri, 20 Nov 2026 09:01:00 GMT', now), 60_000);
    assert.equal(retryAfterMs('Fri, 20 Nov 2026 08:00:00 GMT', now), 0);
    assert.equal(retryAfterMs('999999', now), 6 * 3600_000);
    assert.equal(retryAfterMs('soon', now), null);
    assert.equal(retryAfterMs(undefined, now), null);
  });
});
