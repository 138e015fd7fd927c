import assert from 'node:assert/strict';
import { releaseFinishGarbage } from '../../src/analyzers/heap-release';

/** The collection after a finish: only where gc is exposed, and only once a finish left garbage. */
describe('releaseFinishGarbage', () => {
  const global = globalThis as { gc?: () => void };
  const exposed = global.gc;
  after(() => {
    if (exposed) global.gc = exposed;
    else delete global.gc;
  });

  it('collects after a finish that left more than its slack, and not again until the heap grows', () => {
    let collections = 0;
    global.gc = () => collections++;
    releaseFinishGarbage(); // the first call measures what is live (a test process holds far more than the slack)
    assert.equal(collections, 1);
    releaseFinishGarbage();
    assert.equal(collections, 1, 'nothing grew since');
    const garbage = Array.from({ length: 600_000 }, (_, i) => ({ i, text: `page ${i}` }));
    releaseFinishGarbage();
    assert.equal(collections, 2, `${garbage.length} objects left behind`);
  });

  it('does nothing where gc is not exposed', () => {
    delete global.gc;
    assert.doesNotThrow(() => releaseFinishGarbage());
  });
});
