import assert from 'node:assert/strict';
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey } from '../../src/accounts/keys';
import { periodAt, unixSeconds } from '../../src/accounts/period';
import {
  BURST_LIMIT,
  DEFAULT_ENTERPRISE_QUOTA,
  FEATURE_MIN_TIER,
  RETRIEVAL_LIMIT,
  TIER_RULES,
  monthlyQuota,
  tierAtLeast,
} from '../../src/accounts/tiers';
import {
  auditOptionIncluded,
  featureIncluded,
  requireAuditOption,
  requireTier,
  tiersWithin,
} from '../../src/accounts/tier-gate';
import type { Usage } from '../../src/accounts/usage';
import { ApiError } from '../../src/errors';
import { testAuditId, newLiveAuditId } from '../../src/ids';

describe('API keys', () => {
  it('are svc_<mode>_ followed by 32 base62 characters', () => {
    for (const mode of ['test', 'live'] as const) {
      const key = generateApiKey(mode);
      assert.match(key, new RegExp(`^svc_${mode}_[0-9A-Za-z]{32}$`));
      assert.deepEqual(parseApiKey(key), { mode });
    }
    assert.notEqual(generateApiKey('live'), generateApiKey('live'));
  });

  it('reject every other shape', () => {
    const good = generateApiKey('live');
    for (const bad of [
      '',
      'svc_live_',
      good.slice(0, -1),
      `${good}x`,
      good.replace('svc_live_', 'svc_prod_'),
      good.replace(/.$/, '-'),
      ` ${good}`,
    ]) {
      assert.equal(parseApiKey(bad), null, bad);
    }
  });

  it('are stored as a sha256 hash and shown by a short prefix only', () => {
    const key = generateApiKey('test');
    assert.match(hashApiKey(key), /^[0-9a-f]{64}$/);
    assert.notEqual(hashApiKey(key), hashApiKey(generateApiKey('test')));
    assert.equal(displayPrefix(key), key.slice(0, 13));
    assert.equal(displayPrefix(key).length, 'svc_test_'.length + 4);
  });
});

describe('quota periods', () => {
  it('run from the 1st 00:00 UTC to the next 1st', () => {
    const { start, end } = periodAt(new Date('2026-11-21T10:15:00.000Z'));
    assert.equal(start.toISOString(), '2026-11-01T00:00:00.000Z');
    assert.equal(end.toISOString(), '2026-12-01T00:00:00.000Z');
  });

  it('roll over at the year end and at the exact boundary', () => {
    assert.equal(periodAt(new Date('2026-12-31T23:59:59.999Z')).end.toISOString(), '2027-01-01T00:00:00.000Z');
    assert.equal(periodAt(new Date('2027-01-01T00:00:00.000Z')).start.toISOString(), '2027-01-01T00:00:00.000Z');
    assert.equal(unixSeconds(new Date('2026-12-01T00:00:00.000Z')), 1796083200);
    assert.equal(unixSeconds(new Date('2026-12-01T00:00:00.999Z')), 1796083200);
    const lastInstant = periodAt(new Date('2026-11-30T23:59:59.999Z'));
    assert.deepEqual(
      [lastInstant.start.toISOString(), lastInstant.end.toISOString()],
      ['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    );
  });
});

describe('tiers', () => {
  it('have the spec quotas; enterprise uses its custom quota', () => {
    assert.equal(monthlyQuota('free', null), 5);
    assert.equal(monthlyQuota('pro', null), 50);
    assert.equal(monthlyQuota('team', null), 200);
    assert.equal(monthlyQuota('enterprise', 2500), 2500);
    assert.equal(monthlyQuota('enterprise', null), 1000);
  });

  it('are ordered free < pro < team < enterprise', () => {
    assert.ok(tierAtLeast('team', 'pro'));
    assert.ok(tierAtLeast('pro', 'pro'));
    assert.ok(!tierAtLeast('free', 'pro'));
    assert.ok(!tierAtLeast('team', 'enterprise'));
  });
});

describe('tier table', () => {
  it('holds the documented quotas, page budgets and limits', () => {
    assert.deepEqual(
      Object.fromEntries(Object.entries(TIER_RULES).map(([tier, r]) => [tier, [r.monthlyQuota, r.pageBudget]])),
      { free: [5, 100], pro: [50, 10_000], team: [200, 100_000], enterprise: [null, 1_000_000] },
    );
    assert.equal(DEFAULT_ENTERPRISE_QUOTA, 1000);
    assert.deepEqual(BURST_LIMIT, { limit: 10, windowSeconds: 60 });
    assert.deepEqual(RETRIEVAL_LIMIT, { limit: 100, windowSeconds: 60 });
    assert.deepEqual(FEATURE_MIN_TIER, {
      webhooks: 'pro',
      pdf_reports: 'pro',
      branding: 'pro',
      ip_allowlists: 'team',
      sites: 'pro',
      shares: 'pro',
    });
  });

  it('orders every pair of tiers', () => {
    const order = ['free', 'pro', 'team', 'enterprise'] as const;
    for (const [i, tier] of order.entries()) {
      for (const [j, minimum] of order.entries())
        assert.equal(tierAtLeast(tier, minimum), i >= j, `${tier} >= ${minimum}`);
    }
  });

  it('ignores a custom quota below enterprise', () => {
    assert.equal(monthlyQuota('pro', 7), 50);
    assert.equal(monthlyQuota('enterprise', 0), 0);
  });
});

describe('tier gate', () => {
  const usageOn = (tier: Usage['tier']): Usage => ({
    accountId: 'acct_1',
    tier,
    limit: 1,
    used: 0,
    remaining: 1,
    period: periodAt(new Date()),
  });

  it('lets the minimum tier and above through', () => {
    requireTier(usageOn('team'), 'ip_allowlists', 'IP allowlists');
    requireTier(usageOn('enterprise'), 'ip_allowlists', 'IP allowlists');
    requireTier(usageOn('pro'), 'webhooks', 'webhooks');
  });

  it('answers 403 tier_required naming the minimum tier and the current one', () => {
    for (const [usage, feature, message] of [
      [usageOn('pro'), 'ip_allowlists', 'IP allowlists require the team tier or higher; this account is on pro'],
      [usageOn('free'), 'webhooks', 'IP allowlists require the pro tier or higher; this account is on free'],
      [undefined, 'pdf_reports', 'IP allowlists require the pro tier or higher; this account is on free'],
    ] as const) {
      assert.throws(
        () => requireTier(usage, feature, 'IP allowlists'),
        (e: unknown) => {
          assert.ok(e instanceof ApiError);
          assert.equal(e.code, 'tier_required');
          assert.equal(e.status, 403);
          assert.equal(e.message, message);
          return true;
        },
      );
    }
  });

  it('asks the same question without throwing, for pages that offer controls only when included', () => {
    assert.equal(featureIncluded(usageOn('pro'), 'sites'), true);
    assert.equal(featureIncluded(usageOn('free'), 'sites'), false);
    assert.equal(featureIncluded(usageOn('pro'), 'ip_allowlists'), false);
    assert.equal(featureIncluded(undefined, 'pdf_reports'), false);
  });

  it('answers whether an audit option is included exactly where its gate lets it through (render: all from team)', () => {
    for (const tier of ['free', 'pro', 'team', 'enterprise'] as const) {
      let passes = true;
      try {
        requireAuditOption(usageOn(tier), 'render_all');
      } catch {
        passes = false;
      }
      assert.equal(auditOptionIncluded(usageOn(tier), 'render_all'), passes, tier);
      assert.equal(passes, tier === 'team' || tier === 'enterprise', tier);
    }
    assert.equal(auditOptionIncluded(undefined, 'render_all'), false);
  });

  it('offers audits at the account’s tier and those below, a missing account at free only', () => {
    assert.deepEqual(tiersWithin(usageOn('team')), ['free', 'pro', 'team']);
    assert.deepEqual(tiersWithin(usageOn('free')), ['free']);
    assert.deepEqual(tiersWithin(usageOn('enterprise')), ['free', 'pro', 'team', 'enterprise']);
    assert.deepEqual(tiersWithin(undefined), ['free']);
  });
});

describe('audit ids', () => {
  it('are derived from (workspace, domain) in test mode', () => {
    const a = testAuditId('ws_1', 'https://example.com');
    assert.equal(a, testAuditId('ws_1', 'https://example.com'));
    assert.notEqual(a, testAuditId('ws_2', 'https://example.com'));
    assert.notEqual(a, testAuditId('ws_1', 'https://example.org'));
    assert.match(a, /^aud_[0-9A-Za-z]{26}$/);
  });

  it('are time-ordered in live mode', () => {
    const ids = Array.from({ length: 50 }, () => newLiveAuditId());
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, 50);
  });
});
