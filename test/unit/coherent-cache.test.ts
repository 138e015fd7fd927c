import assert from 'node:assert/strict';
import { CoherentCache } from '../../src/db/coherent-cache';

/** The cache behind the read model and kept share links (src/db/coherent-cache.ts). */
describe('coherent cache', () => {
  const cache = () => new CoherentCache<{ owner: string }>({ maxEntries: 10, ttlMs: 60_000, enabled: () => true });

  it('drops the values a change names by something other than their key, and keeps the rest', async () => {
    const kept = cache();
    let loads = 0;
    const load = (owner: string) => async () => {
      loads++;
      return { owner };
    };
    await kept.get('a', load('acme'));
    await kept.get('b', load('borealis'));
    await kept.get('c', load('acme'));
    kept.invalidateWhere((value) => value.owner === 'acme');
    assert.equal(loads, 3);
    await kept.get('b', load('borealis'));
    assert.equal(loads, 3, 'b was kept');
    await kept.get('a', load('acme'));
    await kept.get('c', load('acme'));
    assert.equal(loads, 5, 'a and c were read again');
  });

  it('does not keep a value whose load was in flight when a change came', async () => {
    const kept = cache();
    let release: (value: { owner: string }) => void = () => undefined;
    const inFlight = kept.get('a', () => new Promise((resolve) => (release = resolve)));
    kept.invalidateWhere(() => false);
    release({ owner: 'stale' });
    assert.equal((await inFlight).owner, 'stale', 'the caller still gets what it read');
    assert.equal((await kept.get('a', async () => ({ owner: 'fresh' }))).owner, 'fresh', 'but it was not kept');
  });
});
