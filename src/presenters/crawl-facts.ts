import type { FindingUrlFact } from '../audits/crawl-facts';
import type { StoredPage } from '../audits/crawl-facts-store';

/** An item of GET /audits/{audit_id}/pages (schema AuditPage): the stored page without its position. */
export function presentAuditPage(row: StoredPage) {
  return {
    url: row.url,
    status: row.status,
    depth: row.depth,
    inlinks: row.inlinks,
    outlinks: row.outlinks,
    title: row.title,
    content_type: row.content_type,
    bytes: row.bytes,
    response_ms: row.response_ms,
    indexable: row.indexable,
    canonical: row.canonical,
    redirect_to: row.redirect_to,
  };
}

/** An item of GET /audits/{audit_id}/findings/{finding_id}/urls (schema FindingUrl). */
export function presentFindingUrl(row: FindingUrlFact) {
  return { url: row.url, depth: row.depth, referrers: row.referrers };
}
