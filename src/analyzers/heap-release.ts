import v8 from 'node:v8';

/**
 * A whole-site finish (an index of every page's titles, links or hashes) leaves what it built as
 * garbage when it ends, and V8 lets the heap grow by half of what its last full collection left live
 * before it collects again: the next finish then builds its own index beside the last one's garbage,
 * and the peak grows with the site. Where gc is exposed (the audit worker, processes/worker-process.ts),
 * a full collection after a finish that left more than SLACK_BYTES beyond what was live brings the
 * heap back first (docs/architecture.md, "Durable crawl", Memory). Elsewhere this does nothing.
 */
export const SLACK_BYTES = 16 * 1024 * 1024;

/** The rule, given how to read the heap's use and the collector (undefined where gc is not exposed). */
export class FinishGarbageRelease {
  private liveAfterCollection = Number.POSITIVE_INFINITY;

  constructor(
    private readonly usedHeap: () => number,
    private readonly collector: () => (() => void) | undefined,
  ) {}

  afterFinish(): void {
    const gc = this.collector();
    if (!gc) return;
    const used = this.usedHeap();
    // Less than after the last collection: V8 has collected on its own since, and that is the mark.
    this.liveAfterCollection = Math.min(this.liveAfterCollection, used);
    if (used < this.liveAfterCollection + SLACK_BYTES) return;
    gc();
    this.liveAfterCollection = this.usedHeap();
  }
}

const shared = new FinishGarbageRelease(
  () => v8.getHeapStatistics().used_heap_size,
  () => (globalThis as { gc?: () => void }).gc,
);

export function releaseFinishGarbage(): void {
  shared.afterFinish();
}
