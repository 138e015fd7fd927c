import assert from 'node:assert/strict';
import { FinishGarbageRelease, releaseFinishGarbage, SLACK_BYTES } from '../../src/analyzers/heap-release';

const MIB = 1024 * 1024;

/**
 * The collection after a finish: only where gc is exposed, and only once a finish left garbage. The
 * heap's use is told, not measured: a real heap collects on its own between two reads whenever it
 * likes (garbage of earlier tests included), which made a measured version of this test flaky.
 */
describe('releaseFinishGarbage', () => {
  it('collects after a finish that left more than its slack, and not again until the heap grows', () => {
    let used = 100 * MIB;
    let collections = 0;
    const release = new FinishGarbageRelease(
      () => used,
      () => () => {
        collections++;
        used = 110 * MIB; // what the collection left live
      },
    );
    release.afterFinish(); // marks what is live now
    assert.equal(collections, 0);
    used += SLACK_BYTES - 1; // a finish left less than its slack
    release.afterFinish();
    assert.equal(collections, 0);
    used = 100 * MIB + SLACK_BYTES; // and now its slack
    release.afterFinish();
    assert.equal(collections, 1);
    release.afterFinish();
    assert.equal(collections, 1, 'nothing grew since');
    used = 110 * MIB + SLACK_BYTES; // the slack counts from what the collection left
    release.afterFinish();
    assert.equal(collections, 2);
  });

  it('takes a lower heap as the mark: V8 collected on its own since', () => {
    let used = 200 * MIB;
    let collections = 0;
    const release = new FinishGarbageRelease(
      () => used,
      () => () => collections++,
    );
    release.afterFinish();
    used = 120 * MIB; // collected by V8 itself
    release.afterFinish();
    used = 120 * MIB + SLACK_BYTES; // the slack beyond the lower mark, still below the first
    release.afterFinish();
    assert.equal(collections, 1);
  });

  it('does nothing where gc is not exposed', () => {
    let reads = 0;
    const release = new FinishGarbageRelease(
      () => ++reads * 1000 * MIB,
      () => undefined,
    );
    release.afterFinish();
    release.afterFinish();
    assert.equal(reads, 0, 'the heap is not even read');
    const global = globalThis as { gc?: () => void };
    const exposed = global.gc;
    global.gc = undefined;
    try {
      assert.doesNotThrow(() => releaseFinishGarbage());
    } finally {
      global.gc = exposed;
    }
  });
});
