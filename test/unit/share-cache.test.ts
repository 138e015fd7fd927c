import assert from 'node:assert/strict';
import { ShareRenderCache } from '../../src/dashboard/share/share-cache';

/** The share links' render cache (src/dashboard/share/share-cache.ts): when it renders, and when it does not. */
describe('share links: the render cache', () => {
  function counted() {
    const calls: string[] = [];
    const render = (value: string) => async () => {
      calls.push(value);
      return value;
    };
    return { calls, render };
  }

  it('renders a link once per version, and again for a new version (branding changed, audit run again)', async () => {
    const cache = new ShareRenderCache<string>({ maxBytes: 1024, sizeOf: (v) => v.length });
    const { calls, render } = counted();
    assert.equal(await cache.get('shr_a', 'aud 1 rev1', render('first')), 'first');
    assert.equal(await cache.get('shr_a', 'aud 1 rev1', render('second')), 'first', 'kept');
    assert.equal(await cache.get('shr_a', 'aud 1 rev2', render('third')), 'third', 'a new version renders');
    assert.equal(await cache.get('shr_b', 'aud 1 rev2', render('fourth')), 'fourth', 'another link renders its own');
    assert.deepEqual(calls, ['first', 'third', 'fourth']);
  });

  it('renders again after forget (the link was found closed), and not before', async () => {
    const cache = new ShareRenderCache<string>({ maxBytes: 1024, sizeOf: (v) => v.length });
    const { calls, render } = counted();
    await cache.get('shr_a', 'v', render('first'));
    cache.forget('shr_b');
    assert.equal(await cache.get('shr_a', 'v', render('second')), 'first', 'forgetting another link changes nothing');
    cache.forget('shr_a');
    assert.equal(await cache.get('shr_a', 'v', render('third')), 'third');
    assert.deepEqual(calls, ['first', 'third']);
  });

  it('shares one rendering among concurrent requests, and keeps nothing of a failed one', async () => {
    const cache = new ShareRenderCache<string>({ maxBytes: 1024, sizeOf: (v) => v.length });
    let renders = 0;
    let finish!: (value: string) => void;
    const slow = () => {
      renders++;
      return new Promise<string>((resolve) => (finish = resolve));
    };
    const waiting = Array.from({ length: 5 }, () => cache.get('shr_a', 'v', slow));
    finish('page');
    assert.deepEqual(await Promise.all(waiting), Array(5).fill('page'));
    assert.equal(renders, 1);

    const failing = async (): Promise<string> => {
      renders++;
      throw new Error('database gone');
    };
    await assert.rejects(cache.get('shr_b', 'v', failing), /database gone/);
    assert.equal(await cache.get('shr_b', 'v', async () => 'recovered'), 'recovered');
    assert.equal(renders, 2);
  });

  it('holds at most maxBytes, dropping the least recently used link', async () => {
    const cache = new ShareRenderCache<string>({ maxBytes: 10, sizeOf: (v) => v.length });
    const { calls, render } = counted();
    await cache.get('shr_a', 'v', render('aaaaa'));
    await cache.get('shr_b', 'v', render('bbbbb'));
    await cache.get('shr_a', 'v', render('unused'));
    await cache.get('shr_c', 'v', render('ccccc')); // over 10: b, the least recently used, goes
    await cache.get('shr_a', 'v', render('unused'));
    await cache.get('shr_b', 'v', render('bbbbb'));
    assert.deepEqual(calls, ['aaaaa', 'bbbbb', 'ccccc', 'bbbbb']);
  });
});
