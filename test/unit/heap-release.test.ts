import assert from 'node:assert/strict';
import { releaseFinishGarbage } from '../../src/analyzers/heap-release';

/** The collection after a finish: only where gc is exposed, and only once a finish left garbage. */
describe('releaseFinishGarbage', () => {
  const global = globalThis as { gc?: () => void };
  const exposed = global.gc;
  after(() => {
    global.gc = exposed;
  });

  it('collects after a finish that left more than its slack, and not again until the heap grows', () => {
    let collections = 0;
    global.gc = () => collections++;
    releaseFinishGarbage(); // marks what is live now
    assert.equal(collections, 0);
    // What a finish leaves behind: more than the 16 MiB of slack.
    const leave = () => Array.from({ length: 600_000 }, (_, i) => ({ i, text: `page ${i}` }));
    const first = leave();
    releaseFinishGarbage();
    assert.equal(collections, 1, `${first.length} objects left behind`);
    releaseFinishGarbage();
    assert.equal(collections, 1, 'nothing grew since');
    const second = leave();
    releaseFinishGarbage();
    assert.equal(collections, 2, `${second.length} more objects left behind`);
  });

  it('does nothing where gc is not exposed', () => {
    global.gc = undefined;
    assert.doesNotThrow(() => releaseFinishGarbage());
  });
});
