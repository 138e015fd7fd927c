import assert from 'node:assert/strict';
import dns from 'node:dns';
import { setAccountTier } from '../../src/accounts/repository';
import { setKeyAllowlist as setKeyAllowlistOf } from '../../src/accounts/key-service';
import { ApiError } from '../../src/errors';
import type { Db } from '../../src/db/knex';
import { systemClock } from '../../src/clock';
import { api, getStack, newAccount, seedLiveAudits, startExtraApi, waitForAudit } from '../support/stack';
import { closedPort, serveSite, type LocalSite } from '../support/sites';

const HOME =
  '<!doctype html><html lang="en"><head><title>A site to audit under limits</title></head><body><h1>Hi</h1></body></html>';
const MINUTE_AGO = () => new Date(Date.now() - 2 * 60_000);

describe('limits: quota, burst, retrieval, tiers, keys (README: Tiers and limits)', function () {
  this.timeout(60_000);
  let site: LocalSite;
  const trigger = (
    key: string,
    opts: { domain?: string; headers?: Record<string, string>; body?: object; baseUrl?: string } = {},
  ) =>
    api('POST', '/v1/audits', {
      key,
      body: opts.body ?? { domain: opts.domain ?? site.origin },
      headers: opts.headers,
      baseUrl: opts.baseUrl,
    });

  before(async () => {
    site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
  });
  after(async () => {
    (await getStack()).clock.reset();
    await site.close();
  });

  describe('monthly quota', () => {
    it('free accounts get 5 live audits; the first audit of a domain is free; then 429 while retrieval keeps working', async () => {
      const account = await newAccount('free');
      const statuses: number[] = [];
      const remaining: string[] = [];
      for (let i = 0; i < 7; i++) {
        const response = await trigger(account.liveKey);
        statuses.push(response.status);
        remaining.push(response.headers.get('x-ratelimit-remaining')!);
        if (response.status === 429) {
          assert.equal(response.body.error.code, 'audit_quota_exceeded');
          assert.match(response.body.error.message, /quota of 5 audits is used up/);
        }
      }
      assert.deepEqual(statuses, [202, 202, 202, 202, 202, 202, 429]);
      assert.deepEqual(remaining, ['5', '4', '3', '2', '1', '0', '0']);
      const usage = await api('GET', '/v1/usage', { key: account.liveKey });
      assert.equal(usage.status, 200);
      assert.deepEqual([usage.body.audits_used, usage.body.audits_remaining, usage.body.audits_limit], [5, 0, 5]);
      assert.equal((await api('GET', '/v1/audits', { key: account.liveKey })).status, 200);
      // Another port of the same host is the same site: charged, so refused. A new site is still
      // free even with no quota left (127.0.0.2 is another address; nothing listens there).
      const site2 = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
      try {
        assert.equal((await trigger(account.liveKey, { domain: site2.origin })).status, 429);
      } finally {
        await site2.close();
      }
      assert.equal(
        (await trigger(account.liveKey, { domain: site.origin.replace('127.0.0.1', '127.0.0.2') })).status,
        202,
      );
    });

    it('8 concurrent triggers against 3 remaining accept exactly 3', async () => {
      const account = await newAccount('pro');
      await seedLiveAudits(account, 47, { createdAt: MINUTE_AGO() });
      await seedLiveAudits(account, 1, { createdAt: MINUTE_AGO(), charged: false, domain: site.origin });
      const responses = await Promise.all(Array.from({ length: 8 }, () => trigger(account.liveKey)));
      const statuses = responses.map((r) => r.status).sort();
      assert.deepEqual(statuses, [202, 202, 202, 429, 429, 429, 429, 429]);
      assert.ok(responses.filter((r) => r.status === 429).every((r) => r.body.error.code === 'audit_quota_exceeded'));
      const { db } = await getStack();
      const [{ count }] = await db('audits')
        .where({ account_id: account.accountId, charged: true })
        .count<{ count: string }[]>('id as count');
      assert.equal(Number(count), 50);
    });

    it('resets at the month boundary (UTC), with X-RateLimit-Reset at the next period start', async () => {
      const { clock } = await getStack();
      const account = await newAccount('free');
      clock.set('2026-11-30T23:59:30.000Z');
      try {
        await seedLiveAudits(account, 5, { createdAt: new Date('2026-11-30T10:00:00.000Z') });
        await seedLiveAudits(account, 1, {
          createdAt: new Date('2026-11-02T10:00:00.000Z'),
          charged: false,
          domain: site.origin,
        });
        const before = await trigger(account.liveKey);
        assert.equal(before.status, 429);
        assert.equal(before.headers.get('x-ratelimit-reset'), String(Date.UTC(2026, 11, 1) / 1000));
        clock.set('2026-12-01T00:00:05.000Z');
        const after = await trigger(account.liveKey);
        assert.equal(after.status, 202, after.text);
        assert.equal(after.headers.get('x-ratelimit-remaining'), '4');
        assert.equal(after.headers.get('x-ratelimit-reset'), String(Date.UTC(2027, 0, 1) / 1000));
        const usage = await api('GET', '/v1/usage', { key: account.liveKey });
        assert.equal(usage.body.period_start, '2026-12-01T00:00:00.000Z');
        assert.equal(usage.body.period_end, '2027-01-01T00:00:00.000Z');
        assert.equal(usage.body.audits_used, 1);
      } finally {
        clock.reset();
      }
    });
  });

  describe('first audit of a site is free (site = registrable domain, or canonical IP address)', () => {
    // Names for this test resolve to 127.0.0.1, as /etc/hosts entries would: no DNS leaves the machine.
    const names = ['acme.test', 'www.acme.test', 'shop.eu.acme.test', 'a.github.io', 'www.a.github.io', 'b.github.io'];
    let restoreLookup: () => void;
    before(() => (restoreLookup = resolveToLoopback(names)));
    after(() => restoreLookup());

    const chargedByDomain = async (accountId: string, auditIds: string[]) => {
      const { db } = await getStack();
      const rows = await db('audits')
        .where({ account_id: accountId })
        .whereIn('id', auditIds)
        .select('domain', 'charged');
      return Object.fromEntries(rows.map((r) => [r.domain, r.charged]));
    };

    it('scheme, port, www. and other sub-domains of one registrable domain make one free audit; a.github.io and b.github.io are two', async () => {
      const account = await newAccount('pro');
      // Nothing listens there: each crawl stops at robots.txt, before any DNS look-up of its own.
      const port = await closedPort();
      const domains = [
        `http://acme.test:${port}`,
        'https://acme.test',
        'https://www.acme.test',
        `http://shop.eu.acme.test:${port}`,
        'https://a.github.io',
        'https://www.a.github.io',
        `http://b.github.io:${port}`,
      ];
      const ids: string[] = [];
      for (const domain of domains) {
        const response = await trigger(account.liveKey, { domain });
        assert.equal(response.status, 202, `${domain}: ${response.text}`);
        ids.push(response.body.audit_id);
      }
      assert.deepEqual(await chargedByDomain(account.accountId, ids), {
        [`http://acme.test:${port}`]: false,
        'https://acme.test': true,
        'https://www.acme.test': true,
        [`http://shop.eu.acme.test:${port}`]: true,
        'https://a.github.io': false,
        'https://www.a.github.io': true,
        [`http://b.github.io:${port}`]: false,
      });
      assert.equal((await api('GET', '/v1/usage', { key: account.testKey })).body.audits_used, 4);
      // The crawls resolve these names too: let them finish before the names go away.
      for (const id of ids) await waitForAudit(account.testKey, id, 30_000).catch(() => undefined);
    });

    it('keys IP literals on their canonical address: an IPv4-mapped IPv6 literal is the IPv4 host', async () => {
      const account = await newAccount('pro');
      const port = new URL(site.origin).port;
      const domains = [
        site.origin,
        `https://127.0.0.1:${port}`,
        `http://[::ffff:127.0.0.1]:${port}`,
        `http://127.0.0.2:${port}`,
      ];
      const ids: string[] = [];
      for (const domain of domains) {
        const response = await trigger(account.liveKey, { domain });
        assert.equal(response.status, 202, `${domain}: ${response.text}`);
        ids.push(response.body.audit_id);
      }
      assert.deepEqual(await chargedByDomain(account.accountId, ids), {
        [site.origin]: false,
        [`https://127.0.0.1:${port}`]: true,
        [`http://[::ffff:7f00:1]:${port}`]: true,
        [`http://127.0.0.2:${port}`]: false,
      });
    });
  });

  describe('tier changes', () => {
    it('upgrade resets remaining to the new maximum; downgrade keeps what was used (no refund)', async () => {
      const { db, clock } = await getStack();
      const account = await newAccount('pro');
      await seedLiveAudits(account, 10, { createdAt: MINUTE_AGO() });
      // Instances learn of changes through Postgres NOTIFY (milliseconds): allow up to a second.
      const expectUsage = async (expected: Record<string, unknown>) => {
        const deadline = Date.now() + 1000;
        for (;;) {
          const actual = pick((await api('GET', '/v1/usage', { key: account.testKey })).body);
          if (JSON.stringify(actual) === JSON.stringify(expected) || Date.now() > deadline)
            return assert.deepEqual(actual, expected);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      await expectUsage({ tier: 'pro', audits_limit: 50, audits_used: 10, audits_remaining: 40 });
      await setAccountTier(db, { accountId: account.accountId, tier: 'team', now: clock.now() });
      await expectUsage({ tier: 'team', audits_limit: 200, audits_used: 0, audits_remaining: 200 });
      await seedLiveAudits(account, 3, { createdAt: new Date(Date.now() + 1000) });
      await expectUsage({ tier: 'team', audits_limit: 200, audits_used: 3, audits_remaining: 197 });
      await setAccountTier(db, { accountId: account.accountId, tier: 'pro', now: clock.now() });
      await expectUsage({ tier: 'pro', audits_limit: 50, audits_used: 3, audits_remaining: 47 });
      await setAccountTier(db, { accountId: account.accountId, tier: 'free', now: clock.now() });
      await expectUsage({ tier: 'free', audits_limit: 5, audits_used: 3, audits_remaining: 2 });
      await seedLiveAudits(account, 4, { createdAt: new Date(Date.now() + 2000) });
      await expectUsage({ tier: 'free', audits_limit: 5, audits_used: 7, audits_remaining: 0 });
      await setAccountTier(db, {
        accountId: account.accountId,
        tier: 'enterprise',
        customQuota: 1500,
        now: new Date(Date.now() + 5000),
      });
      await expectUsage({ tier: 'enterprise', audits_limit: 1500, audits_used: 0, audits_remaining: 1500 });
    });
  });

  describe('burst limit', () => {
    it('20 concurrent triggers against 9 remaining burst slots accept exactly 9, the rest get Retry-After', async () => {
      const account = await newAccount('team');
      await seedLiveAudits(account, 1, {
        createdAt: new Date(Date.now() - 20_000),
        charged: false,
        domain: site.origin,
      });
      const responses = await Promise.all(Array.from({ length: 20 }, () => trigger(account.liveKey)));
      const accepted = responses.filter((r) => r.status === 202);
      const limited = responses.filter((r) => r.status === 429);
      assert.equal(accepted.length, 9);
      assert.equal(limited.length, 11);
      for (const response of limited) {
        assert.equal(response.body.error.code, 'burst_limit_exceeded');
        const retryAfter = Number(response.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 41, `Retry-After ${retryAfter}`);
      }
    });

    it('frees a slot 60 s after the oldest trigger in the window', async () => {
      const { clock } = await getStack();
      const account = await newAccount('team');
      await seedLiveAudits(account, 10, { createdAt: new Date(Date.now() - 30_000), charged: false });
      const limited = await trigger(account.liveKey);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '30');
      clock.advance(31_000);
      try {
        assert.equal((await trigger(account.liveKey)).status, 202);
      } finally {
        clock.reset();
      }
    });
  });

  describe('retrieval limit', () => {
    it('admits exactly 100 requests a minute per workspace across two API instances, then 429 with Retry-After', async () => {
      const account = await newAccount('pro');
      const other = await startExtraApi();
      const responses = await Promise.all(
        Array.from({ length: 110 }, (_, i) =>
          api('GET', '/v1/usage', { key: account.liveKey, baseUrl: i % 2 ? other.url : undefined }),
        ),
      );
      const limited = responses.filter((r) => r.status === 429);
      assert.equal(responses.filter((r) => r.status === 200).length, 100);
      assert.equal(limited.length, 10);
      assert.equal(limited[0].body.error.code, 'retrieval_limit_exceeded');
      assert.ok(Number(limited[0].headers.get('retry-after')) >= 1);
      assert.equal(limited[0].headers.get('x-ratelimit-remaining'), '50', 'retrieval never touches the audit quota');
      // Triggers are not retrieval; test keys are never limited.
      assert.equal((await trigger(account.liveKey)).status, 202);
      assert.equal((await api('GET', '/v1/usage', { key: account.testKey })).status, 200);
    });
  });

  describe('test mode', () => {
    it('ignores quota, burst and retrieval limits entirely', async () => {
      const account = await newAccount('free');
      await seedLiveAudits(account, 5, { createdAt: new Date() });
      const triggers = await Promise.all(
        Array.from({ length: 15 }, (_, i) => trigger(account.testKey, { domain: `https://t${i}.example.com` })),
      );
      assert.ok(triggers.every((r) => r.status === 202));
      const reads = await Promise.all(
        Array.from({ length: 120 }, () => api('GET', '/v1/audits?limit=1', { key: account.testKey })),
      );
      assert.ok(reads.every((r) => r.status === 200));
      assert.equal(reads[0].headers.get('x-ratelimit-remaining'), '0');
    });
  });

  describe('tier gating', () => {
    it('IP allowlists need team; enterprise has every feature', async () => {
      const { db } = await getStack();
      const pro = await newAccount('pro');
      await assert.rejects(setKeyAllowlist(db, pro.liveKeyId, ['203.0.113.0/24']), (err) => {
        assert.ok(err instanceof ApiError && err.code === 'tier_required');
        assert.match(err.message, /require the team tier/);
        return true;
      });
      const enterprise = await newAccount('enterprise', 3000);
      await setKeyAllowlist(db, enterprise.liveKeyId, ['127.0.0.0/8']);
      assert.equal(
        (await trigger(enterprise.testKey, { body: { domain: 'https://e.example.com', tier: 'enterprise' } })).status,
        202,
      );
      assert.equal(
        (await trigger(enterprise.testKey, { body: { domain: 'https://e.example.com', tier: 'team' } })).status,
        202,
      );
      assert.equal((await api('GET', '/v1/webhooks', { key: enterprise.testKey })).status, 200);
      assert.equal((await api('GET', '/v1/usage', { key: enterprise.liveKey })).body.audits_limit, 3000);
    });

    it('a trigger tier above the account tier is tier_required for every lower tier', async () => {
      const cases: Array<['free' | 'pro' | 'team', string[]]> = [
        ['free', ['pro', 'team', 'enterprise']],
        ['pro', ['team', 'enterprise']],
        ['team', ['enterprise']],
      ];
      for (const [tier, above] of cases) {
        const account = await newAccount(tier);
        for (const wanted of above) {
          const response = await trigger(account.testKey, {
            body: { domain: 'https://gate.example.com', tier: wanted },
          });
          assert.equal(response.status, 403);
          assert.equal(response.body.error.code, 'tier_required');
          assert.match(response.body.error.message, new RegExp(`requires the ${wanted} tier`));
        }
      }
    });
  });

  describe('keys', () => {
    it('refuses requests from outside a key allowlist with 403 ip_not_allowed', async () => {
      const { db } = await getStack();
      const account = await newAccount('team');
      await setKeyAllowlist(db, account.liveKeyId, ['10.0.0.0/8', '2001:db8::/32']);
      const refused = await api('GET', '/v1/usage', { key: account.liveKey });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'ip_not_allowed');
      // Instances drop their cached key on the change's NOTIFY (milliseconds): allow up to a second.
      const statusSoon = async (expected: number) => {
        const deadline = Date.now() + 1000;
        for (;;) {
          const { status } = await api('GET', '/v1/usage', { key: account.liveKey });
          if (status === expected || Date.now() > deadline) return status;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      await setKeyAllowlist(db, account.liveKeyId, ['127.0.0.1']);
      assert.equal(await statusSoon(200), 200);
      await setKeyAllowlist(db, account.liveKeyId, ['192.0.2.0/24']);
      assert.equal(await statusSoon(403), 403);
      await setKeyAllowlist(db, account.liveKeyId, []);
      assert.equal(await statusSoon(200), 200);
    });

    it('keeps last_used_at without a database write per request', async () => {
      const { db, service } = await getStack();
      const account = await newAccount('pro');
      // Counted as statements: the periodic batch (every 15 s, maybe started by an earlier test) may
      // run once meanwhile on a slow machine; a write per request would be five.
      const writes: string[] = [];
      const onQuery = (query: { sql: string }) => {
        if (/^update\s+"?api_keys/i.test(query.sql)) writes.push(query.sql);
      };
      db.on('query', onQuery);
      try {
        for (let i = 0; i < 5; i++) await api('GET', '/v1/usage', { key: account.testKey });
      } finally {
        db.off('query', onQuery);
      }
      assert.ok(writes.length <= 1, `not written on the request path: ${writes.length} writes for 5 requests`);
      await service.authenticator.flush();
      const after = await db('api_keys')
        .where({ workspace_id: account.workspaceId, mode: 'test' })
        .first('last_used_at');
      assert.ok(after.last_used_at instanceof Date);
    });
  });

  describe('Idempotency-Key', () => {
    it('returns the first response for the same key and body, consuming one audit; another body is invalid_request', async () => {
      const account = await newAccount('pro');
      await seedLiveAudits(account, 1, { createdAt: MINUTE_AGO(), charged: false, domain: site.origin });
      const headers = { 'Idempotency-Key': 'order-4711' };
      const first = await trigger(account.liveKey, { headers });
      assert.equal(first.status, 202);
      const again = await Promise.all(
        Array.from({ length: 4 }, () => trigger(account.liveKey, { headers, body: { domain: site.origin } })),
      );
      for (const response of again) {
        assert.equal(response.status, 202);
        assert.deepEqual(response.body, first.body);
        assert.equal(response.headers.get('idempotent-replayed'), 'true');
      }
      assert.equal((await api('GET', '/v1/usage', { key: account.liveKey })).body.audits_used, 1);
      const conflicting = await trigger(account.liveKey, { headers, body: { domain: site.origin, tier: 'free' } });
      assert.equal(conflicting.status, 400);
      assert.equal(conflicting.body.error.code, 'invalid_request');
      assert.match(conflicting.body.error.message, /Idempotency-Key/);
      const { db } = await getStack();
      assert.equal((await db('audits').where({ account_id: account.accountId })).length, 2);
    });

    it('serializes concurrent first uses of one key into one audit', async () => {
      const account = await newAccount('pro');
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => trigger(account.liveKey, { headers: { 'Idempotency-Key': 'burst-1' } })),
      );
      assert.ok(responses.every((r) => r.status === 202));
      assert.equal(new Set(responses.map((r) => r.body.audit_id)).size, 1);
      const { db } = await getStack();
      assert.equal((await db('audits').where({ account_id: account.accountId })).length, 1);
      await waitForAudit(account.liveKey, responses[0].body.audit_id);
    });
  });
});

/** Makes the system resolver answer 127.0.0.1 for these names (like /etc/hosts entries); returns the undo. */
function resolveToLoopback(names: string[]): () => void {
  const original = dns.promises.lookup;
  const loopback = (async (hostname: string, options?: unknown) =>
    names.includes(hostname.toLowerCase())
      ? (options as { all?: boolean } | undefined)?.all
        ? [{ address: '127.0.0.1', family: 4 }]
        : { address: '127.0.0.1', family: 4 }
      : original(hostname, options as dns.LookupOptions)) as typeof dns.promises.lookup;
  dns.promises.lookup = loopback;
  return () => {
    dns.promises.lookup = original;
  };
}

function pick(usage: Record<string, unknown>) {
  return {
    tier: usage.tier,
    audits_limit: usage.audits_limit,
    audits_used: usage.audits_used,
    audits_remaining: usage.audits_remaining,
  };
}

/** The admin CLI's `key allow-ips`: src/accounts/key-service.ts, with its tier gate and parser. */
function setKeyAllowlist(db: Db, keyId: string, cidrs: string[]) {
  return setKeyAllowlistOf({ db, clock: systemClock }, keyId, cidrs);
}
