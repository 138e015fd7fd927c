import { packSummaries, unpackSummaries } from './observed-part';
import type { PageSummary } from './page-summary';

/** Summaries serialized together: about 300 KiB, compressed to a tenth of it (each names every field). */
export const SUMMARY_CHUNK_PAGES = 1_000;

/**
 * Every page's summary in crawl order, kept a chunk at a time as serialized bytes outside the V8
 * heap: a 100,000-page site's summaries would otherwise be live objects for the whole analysis,
 * and V8 lets its heap grow to a multiple of what is live (docs/architecture.md, "Durable crawl",
 * Memory). They are read back in order, as often as needed: the audit JSON takes the first ones,
 * the pages listing every one, and a write retried after a database outage goes over them again.
 */
export class PageSummaries implements Iterable<PageSummary> {
  private readonly chunks: Buffer[] = [];
  private pending: PageSummary[] = [];
  private count = 0;

  constructor(private readonly chunkPages = SUMMARY_CHUNK_PAGES) {}

  push(summary: PageSummary): void {
    this.pending.push(summary);
    this.count++;
    if (this.pending.length >= this.chunkPages) this.flush();
  }

  /** A part's summaries observed elsewhere (packSummaries), after every summary pushed so far. */
  append(packed: Uint8Array, pages: number): void {
    this.flush();
    // A copy: what v8.deserialize gives is a view on the whole part's bytes, which it would keep.
    this.chunks.push(Buffer.from(packed));
    this.count += pages;
  }

  get length(): number {
    return this.count;
  }

  *[Symbol.iterator](): Iterator<PageSummary> {
    for (const chunk of this.chunks) yield* unpackSummaries(chunk);
    yield* this.pending;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(packSummaries(this.pending));
    this.pending = [];
  }
}
