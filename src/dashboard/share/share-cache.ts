import { LRUCache } from 'lru-cache';

/**
 * What this process rendered for share links (the page, the badge), one entry per link, kept with the
 * version it was rendered from (docs/decisions.md, "Share links"). It is asked only after the link
 * was read from the database and found open, so a revoked or expired link is a 404 before anything
 * here is looked at; the version names everything the rendering read that can change (the audit's
 * completion, the branding's revision), so a changed branding or a re-run audit is rendered anew on
 * its next request. Concurrent requests for a version not yet kept share one rendering.
 */
export class ShareRenderCache<T> {
  private readonly kept: LRUCache<string, { version: string; value: T }>;
  private readonly rendering = new Map<string, Promise<T>>();

  constructor(options: { maxBytes: number; sizeOf: (value: T) => number }) {
    this.kept = new LRUCache({
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => Math.max(1, options.sizeOf(entry.value)),
    });
  }

  /** The value kept for the link at this version, else `render`'s (kept for the next request). */
  async get(shareId: string, version: string, render: () => Promise<T>): Promise<T> {
    const kept = this.kept.get(shareId);
    if (kept?.version === version) return kept.value;
    const key = `${shareId} ${version}`;
    let pending = this.rendering.get(key);
    if (!pending) {
      pending = render()
        .then((value) => {
          this.kept.set(shareId, { version, value });
          return value;
        })
        .finally(() => this.rendering.delete(key));
      this.rendering.set(key, pending);
    }
    return pending;
  }

  /** Drops what is kept of a link that no longer opens (memory only: it would never be served). */
  forget(shareId: string): void {
    this.kept.delete(shareId);
  }
}
