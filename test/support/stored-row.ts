import type { SnapshotPage } from '../../src/analyzers/snapshot';
import type { StoredPageRow } from '../../src/crawl/durable/stored-snapshot';

/**
 * A crawled page as the durable crawl stores it (src/crawl/durable/frontier-commit.ts): its metadata's
 * JSON without the body, and its frontier row's referrers beside it, as loadStoredSnapshot joins them.
 */
export function storedRowOf(page: SnapshotPage): StoredPageRow {
  const { body: _body, foundOn, linkedFrom, rendered, ...metadata } = page;
  return {
    page: JSON.stringify(metadata),
    rendered: rendered ? JSON.stringify(rendered) : null,
    found_on: page.depth === 0 ? null : [...(foundOn ?? [])],
    linked_from: linkedFrom ?? 0,
  };
}
