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
});
