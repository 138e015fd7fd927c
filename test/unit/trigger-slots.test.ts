import assert from 'node:assert/strict';
import { TriggerSlots } from '../../src/audits/trigger-slots';

describe('TriggerSlots', () => {
  it('runs at most `size` at once and lets the waiting ones in first come, first served', async () => {
    const slots = new TriggerSlots(2);
    const releases: Array<() => void> = [];
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const runs = [0, 1, 2, 3, 4].map((n) =>
      slots.run(async () => {
        started.push(n);
        peak = Math.max(peak, ++running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return n;
      }),
    );
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    assert.deepEqual(started, [0, 1]);
    for (let released = 0; released < 5; released++) {
      releases[released]();
      await settle();
    }
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4]);
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    assert.equal(peak, 2);
  });

  it('frees the slot when the work fails', async () => {
    const slots = new TriggerSlots(1);
    await assert.rejects(
      slots.run(async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await slots.run(async () => 'next'), 'next');
  });
});
