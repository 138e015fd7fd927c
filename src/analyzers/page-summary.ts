import type { CrawledPage } from '../schemas/audit';
import type { ParsedPage } from './parse';
import { firstCanonical } from './seo-links';
import { titleText } from './seo-page';
import { isIndexable } from './seo-structure-common';
import { headerValue } from './snapshot';

/**
 * What an audit keeps of each crawled page besides the analyzers' verdicts: its line in the audit
 * JSON's `crawl.pages`, and the facts the pages listing shows (indexable, canonical, links).
 */
export interface PageSummary extends CrawledPage {
  /** The URL as requested; differs from `url` (the final URL) when it redirected. */
  requestedUrl: string;
  /** Each hop before the final URL, with its status. */
  redirects: readonly { url: string; status: number }[];
  indexable: boolean;
  canonical: string | null;
  inlinks: number;
  outlinks: number;
}

export function summarizePage(p: ParsedPage): PageSummary {
  return {
    url: p.url,
    status_code: p.page.status,
    depth: p.page.depth,
    ttfb_ms: Math.max(0, Math.round(p.page.ttfbMs)),
    bytes: Math.max(0, Math.round(p.page.bytes)),
    content_type: headerValue(p.page.headers, 'content-type') ?? null,
    title: p.isHtml ? titleText(p) : null,
    requestedUrl: p.page.url,
    redirects: p.page.redirectChain.map((hop) => ({ url: hop.url, status: hop.status })),
    indexable: isIndexable(p),
    canonical: p.isHtml ? firstCanonical(p) : null,
    inlinks: p.page.linkedFrom ?? 0,
    outlinks: p.page.outlinks ?? 0,
  };
}
