import assert from 'node:assert/strict';
import { AuthFailureLimiter } from '../../src/accounts/auth-failure-limit';

describe('failed authentications per address', () => {
  it('refuses after the limit until the oldest failure leaves the window', () => {
    const limiter = new AuthFailureLimiter({ limit: 3, windowMs: 60_000, maxAddresses: 100 });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      assert.equal(limiter.retryAfterSeconds('198.51.100.7', t0 + i * 1000), 0);
      limiter.recordFailure('198.51.100.7', t0 + i * 1000);
    }
    assert.equal(limiter.retryAfterSeconds('198.51.100.7', t0 + 2500), 58);
    assert.equal(limiter.retryAfterSeconds('198.51.100.8', t0 + 2500), 0, 'other addresses are not affected');
    assert.equal(limiter.retryAfterSeconds('198.51.100.7', t0 + 59_999), 1);
    assert.equal(limiter.retryAfterSeconds('198.51.100.7', t0 + 60_000), 0, 'the first failure left the window');
  });

  it('forgets the addresses seen longest ago when full', () => {
    const limiter = new AuthFailureLimiter({ limit: 1, windowMs: 60_000, maxAddresses: 2 });
    limiter.recordFailure('a', 1);
    limiter.recordFailure('b', 2);
    limiter.recordFailure('a', 3);
    limiter.recordFailure('c', 4);
    assert.ok(limiter.retryAfterSeconds('a', 5) > 0);
    assert.ok(limiter.retryAfterSeconds('c', 5) > 0);
    assert.equal(limiter.retryAfterSeconds('b', 5), 0, 'b was the least recent and made room');
  });

  it('reserves slots synchronously: of 100 at once exactly the limit get one, and only failures keep theirs', () => {
    const limiter = new AuthFailureLimiter({ limit: 60, windowMs: 60_000, maxAddresses: 100 });
    const t0 = 1_000_000;
    // All reserved before any lookup answers, as when 100 requests arrive together.
    const slots = Array.from({ length: 100 }, () => limiter.reserve('192.0.2.1', t0));
    const granted = slots.filter((slot) => slot !== null);
    assert.equal(granted.length, 60);
    assert.ok(limiter.retryAfterSeconds('192.0.2.1', t0) > 0);

    // Ten of the keys were valid: their slots come back, and exactly ten more lookups may run.
    for (const slot of granted.slice(0, 10)) limiter.release(slot!);
    const more = Array.from({ length: 20 }, () => limiter.reserve('192.0.2.1', t0 + 1));
    assert.equal(more.filter(Boolean).length, 10);
    assert.equal(limiter.reserve('192.0.2.1', t0 + 2), null);
    assert.equal(limiter.retryAfterSeconds('192.0.2.1', t0 + 2), 60);
    assert.ok(limiter.reserve('192.0.2.2', t0 + 2), 'other addresses are not affected');
    assert.ok(limiter.reserve('192.0.2.1', t0 + 60_001), 'the window passed');
  });

  it('counts a failure that took no slot (a known key revoked since), and a released slot only once', () => {
    const limiter = new AuthFailureLimiter({ limit: 2, windowMs: 60_000, maxAddresses: 100 });
    const slot = limiter.reserve('a', 1)!;
    limiter.release(slot);
    limiter.release(slot);
    limiter.recordFailure('a', 2);
    assert.ok(limiter.reserve('a', 3));
    assert.equal(limiter.reserve('a', 4), null);
  });
});
