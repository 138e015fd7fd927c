import assert from 'node:assert/strict';
import { newRequestId, randomBase62 } from '../../src/ids';

describe('random ids', () => {
  it('are base62 of the asked length, also across the blocks of random bytes they are drawn from', () => {
    // 4 KiB blocks: 500 ids of 32 characters take about four of them.
    const ids = Array.from({ length: 500 }, () => randomBase62(32));
    for (const id of ids) assert.match(id, /^[0-9A-Za-z]{32}$/);
    assert.equal(new Set(ids).size, ids.length);
    assert.match(newRequestId(), /^req_[0-9A-Za-z]{20}$/);
  });

  it('draw every character equally often (rejection sampling, no modulo bias)', () => {
    const counts = new Map<string, number>();
    const text = randomBase62(62 * 2000);
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // Each count is about 2,000 ± 44 (one standard deviation); a modulo bias would put the first
    // eight characters 25 % above the rest. ±12 % is more than 5 standard deviations.
    for (const [c, n] of counts) assert.ok(n > 1760 && n < 2240, `${c} drawn ${n} times of an expected 2000`);
  });
});
