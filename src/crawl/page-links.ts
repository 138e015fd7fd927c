import { Parser } from 'htmlparser2';
import { parseRefresh } from '../analyzers/client-redirect';
import { resolveUrl } from '../analyzers/page-references';
import type { SnapshotResource } from '../analyzers/snapshot';

export interface PageLinks {
  links: string[];
  resources: Array<{ url: string; kind: SnapshotResource['kind'] }>;
}

/**
 * Links and subresources of an HTML page, with <base href> honoured. One streaming pass. Where the
 * page refreshes to another URL (its Refresh header, `refreshHeader`, else its first valid refresh
 * meta element), that URL is a link: a client-side redirect leads the crawl on (docs/analyzers.md).
 */
export function extractLinks(html: string, pageUrl: string, refreshHeader?: string): PageLinks {
  let base = pageUrl;
  let baseSeen = false;
  const links: string[] = [];
  const headerRefresh = refreshHeader === undefined ? null : parseRefresh(refreshHeader);
  let refreshSeen = headerRefresh !== null;
  if (headerRefresh?.url) {
    const url = resolveUrl(headerRefresh.url, pageUrl);
    if (url) links.push(url);
  }
  const resources: PageLinks['resources'] = [];
  const addResource = (raw: string | undefined, kind: SnapshotResource['kind']) => {
    const url = resolveUrl(raw, base);
    if (url) resources.push({ url, kind });
  };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        switch (name) {
          case 'base':
            if (!baseSeen && attribs.href !== undefined) {
              baseSeen = true;
              base = resolveUrl(attribs.href, pageUrl) ?? pageUrl;
            }
            break;
          case 'a':
          case 'area': {
            const url = resolveUrl(attribs.href, base);
            if (url) links.push(url);
            break;
          }
          case 'script':
            addResource(attribs.src, 'script');
            break;
          case 'link':
            if ((attribs.rel ?? '').toLowerCase().split(/\s+/).includes('stylesheet'))
              addResource(attribs.href, 'stylesheet');
            break;
          case 'img':
            addResource(attribs.src, 'image');
            break;
          case 'meta': {
            if (refreshSeen || (attribs['http-equiv'] ?? '').trim().toLowerCase() !== 'refresh') break;
            const refresh = parseRefresh(attribs.content ?? '');
            refreshSeen = refresh !== null;
            const url = refresh?.url ? resolveUrl(refresh.url, base) : null;
            if (url) links.push(url);
            break;
          }
          default:
            break;
        }
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
  );
  parser.end(html);
  return { links, resources };
}
