import assert from 'node:assert/strict';
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey } from '../../src/accounts/keys';
import { periodAt, unixSeconds } from '../../src/accounts/period';
import { monthlyQuota, tierAtLeast } from '../../src/accounts/tiers';
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
    for (const bad of ['', 'svc_live_', good.slice(0, -1), `${good}x`, good.replace('svc_live_', 'svc_prod_'), good.replace(/.$/, '-'), ` ${good}`]) {
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
