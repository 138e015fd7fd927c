import { clientRedirect } from './client-redirect';
import { attr, type ParsedPage } from './parse';
import { hash52 } from './simhash';

/**
 * The URLs a page references, read from its parsed document by the rules the crawl reads its links
 * and subresources with (src/crawl/page-links.ts): `<a href>`, `<area href>`, a client-side
 * redirect's target, `<script src>`, `<link rel="stylesheet" href>` and `<img src>`, resolved
 * against `<base href>`. SEO_BROKEN_LINK matches them against the broken targets to name every page
 * linking to one, where the crawl keeps only the first referrers and an exact count.
 */

/** Absolute http(s) URL without fragment, or null. */
export function resolveUrl(raw: string | undefined, base: string): string | null {
  if (raw === undefined) return null;
  const trimmed = raw.trim();
  if (trimmed === '' || /^(?:javascript|mailto|tel|data|blob|about):/i.test(trimmed)) return null;
  try {
    const url = new URL(trimmed, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password) return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/** Distinct references kept per page: far beyond any real page, a bound on a hostile one. */
const MAX_REFERENCES = 5_000;

const ANCHORS: ReadonlyArray<[tag: string, attribute: string]> = [
  ['a', 'href'],
  ['area', 'href'],
];
const RESOURCES: ReadonlyArray<[tag: string, attribute: string, stylesheetOnly?: boolean]> = [
  ['script', 'src'],
  ['link', 'href', true],
  ['img', 'src'],
];

interface References {
  /** What its <a href> and <area href> lead to (SEO_INTERNAL_REDIRECT_LINK). */
  anchors: Float64Array;
  /** Everything it references: anchors, a client-side redirect's target, subresources (SEO_BROKEN_LINK). */
  all: Float64Array;
}

/** Read once per page for both analyzers that match them: resolving URLs is the costly part. */
const READ = new WeakMap<ParsedPage, References>();

/**
 * hash52 of each distinct URL the page references, as typed arrays: read back from the analysis'
 * scratch file they are views on the chunk's bytes, not a heap number per link (docs/architecture.md).
 */
function references(p: ParsedPage): References {
  let read = READ.get(p);
  if (read) return read;
  const baseHref = p.elements('base').find((b) => attr(b, 'href') !== undefined);
  const base = (baseHref && resolveUrl(attr(baseHref, 'href'), p.url)) || p.url;
  const out = new Set<number>();
  const add = (tag: string, attribute: string, stylesheetOnly = false) => {
    for (const el of p.elements(tag)) {
      if (out.size >= MAX_REFERENCES) return;
      if (stylesheetOnly && !(attr(el, 'rel') ?? '').toLowerCase().split(/\s+/).includes('stylesheet')) continue;
      const url = resolveUrl(attr(el, attribute), base);
      if (url !== null) out.add(hash52(url));
    }
  };
  for (const [tag, attribute] of ANCHORS) add(tag, attribute);
  const anchors = Float64Array.from(out);
  const redirect = clientRedirect(p);
  if (redirect && out.size < MAX_REFERENCES) out.add(hash52(redirect.to));
  for (const [tag, attribute, stylesheetOnly] of RESOURCES) add(tag, attribute, stylesheetOnly);
  read = { anchors, all: Float64Array.from(out) };
  READ.set(p, read);
  return read;
}

/** hash52 of each distinct URL the page's <a href> and <area href> lead to. */
export function anchorHashes(p: ParsedPage): Float64Array {
  return references(p).anchors;
}

/** hash52 of each distinct URL the page references, as the crawl reads its links and subresources. */
export function referenceHashes(p: ParsedPage): Float64Array {
  return references(p).all;
}
