import { parseDocument } from 'htmlparser2';
import { isComment, isDirective, isTag, isText, type ChildNode, type Document, type Element } from 'domhandler';
import { mediaType, type SiteStylesheet, type SnapshotPage } from './snapshot';

/**
 * Each page's HTML is parsed once (htmlparser2: fast, forgiving, with source offsets) and indexed by
 * tag name in a single walk; every analyzer reads the shared index instead of re-querying the tree.
 */

const NO_ELEMENTS: readonly Element[] = Object.freeze([]);

/** The site's own stylesheets the crawl fetched: URL → CSS text. */
export type StylesheetTexts = ReadonlyMap<string, string>;
const NO_STYLESHEETS: StylesheetTexts = new Map();

export interface ParsedPage {
  readonly page: SnapshotPage;
  /** URL reported in findings: where the content was served (after redirects). */
  readonly url: string;
  /** True for 2xx HTML documents: the pages content checks apply to. */
  readonly isHtml: boolean;
  /** The HTML source (empty when not an HTML document); element offsets index into it. */
  readonly source: string;
  readonly doc: Document | null;
  /** The doctype declaration's text (e.g. `!DOCTYPE html`) when it opens the document, else null. */
  readonly doctype: string | null;
  /** Elements by lower-case tag name, in document order. */
  elements(tag: string): readonly Element[];
  /** The site's stylesheets, which the page's <link rel="stylesheet"> may name. */
  readonly stylesheets: StylesheetTexts;
}

const PARSE_OPTIONS = {
  lowerCaseTags: true,
  lowerCaseAttributeNames: true,
  decodeEntities: true,
  withStartIndices: true,
  withEndIndices: true,
} as const;

/** HTML documents that content checks apply to: 2xx, an HTML media type (or none, sniffed), a body. */
export function isHtmlDocument(page: SnapshotPage): boolean {
  if (page.status < 200 || page.status > 299 || page.body === null) return false;
  const type = mediaType(page.headers);
  if (type === 'text/html' || type === 'application/xhtml+xml') return true;
  return type === '' && /^\s*</.test(page.body.slice(0, 512));
}

export function parsePage(page: SnapshotPage, stylesheets: StylesheetTexts = NO_STYLESHEETS): ParsedPage {
  if (!isHtmlDocument(page) || page.body === null) {
    return {
      page,
      url: page.finalUrl,
      isHtml: false,
      source: '',
      doc: null,
      doctype: null,
      elements: () => NO_ELEMENTS,
      stylesheets,
    };
  }
  // A BOM is not markup; offsets stay aligned because the parser sees the same string we slice.
  const source = page.body.charCodeAt(0) === 0xfeff ? page.body.slice(1) : page.body;
  const doc = parseDocument(source, PARSE_OPTIONS);
  const index = new Map<string, Element[]>();
  const stack: ChildNode[] = [];
  for (let i = doc.children.length - 1; i >= 0; i--) stack.push(doc.children[i]!);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    const list = index.get(node.name);
    if (list) list.push(node);
    else index.set(node.name, [node]);
    const kids = node.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return {
    page,
    url: page.finalUrl,
    isHtml: true,
    source,
    doc,
    doctype: leadingDoctype(doc),
    elements: (tag) => index.get(tag) ?? NO_ELEMENTS,
    stylesheets,
  };
}

export function parsePages(pages: readonly SnapshotPage[], stylesheets?: StylesheetTexts): ParsedPage[] {
  return pages.map((page) => parsePage(page, stylesheets));
}

/** The snapshot's stylesheets by URL, for parsePage. */
export function stylesheetTexts(snapshot: { readonly stylesheets?: readonly SiteStylesheet[] }): StylesheetTexts {
  return new Map((snapshot.stylesheets ?? []).map((sheet) => [sheet.url, sheet.text]));
}

/** The doctype only counts before any element or non-blank text (comments may precede it). */
function leadingDoctype(doc: Document): string | null {
  for (const node of doc.children) {
    if (isDirective(node)) return node.name.toLowerCase() === '!doctype' ? node.data : null;
    if (isComment(node)) continue;
    if (isText(node) && node.data.trim() === '') continue;
    return null;
  }
  return null;
}

// ── small DOM helpers shared by analyzers ──────────────────────────────────────────────────────

export function attr(el: Element, name: string): string | undefined {
  return el.attribs[name];
}

/** True when the element sits inside an element of the given tag (e.g. a <title> inside <svg>). */
export function hasAncestor(el: Element, tag: string): boolean {
  for (let p = el.parent; p; p = p.parent) if (isTag(p) && p.name === tag) return true;
  return false;
}

/** The document base URL: the first <base href>, resolved against the page URL (the page URL when invalid). */
export function documentBaseUrl(p: ParsedPage): string {
  const base = p.elements('base').find((b) => attr(b, 'href') !== undefined);
  if (base) {
    try {
      return new URL(attr(base, 'href')!.trim(), p.url).href;
    } catch {
      /* invalid base: browsers fall back to the document URL */
    }
  }
  return p.url;
}

/** <meta name="..."> elements, matching the name case-insensitively as browsers do. */
export function metaNamed(p: ParsedPage, name: string): Element[] {
  return p.elements('meta').filter((m) => (m.attribs.name ?? '').trim().toLowerCase() === name);
}

/** <meta http-equiv="..."> elements, case-insensitively. */
export function metaHttpEquiv(p: ParsedPage, name: string): Element[] {
  return p.elements('meta').filter((m) => (m.attribs['http-equiv'] ?? '').trim().toLowerCase() === name);
}

export const SNIPPET_MAX = 200;

/**
 * The element's outerHTML as written in the page (a source slice, so it is exactly what the customer
 * will find in their template), whitespace collapsed and truncated.
 */
export function snippet(p: ParsedPage, el: Element, max = SNIPPET_MAX): string {
  const start = el.startIndex;
  const end = el.endIndex;
  let text: string;
  if (start !== null && end !== null && end >= start) {
    // Never copy more than we can show: bounded work even for a huge element such as <body>.
    text = p.source.slice(start, Math.min(end + 1, start + max * 4));
    if (end + 1 > start + max * 4) text += '…';
  } else {
    text = startTag(el);
  }
  return truncate(text.replace(/\s+/g, ' ').trim(), max);
}

/** Just the start tag, rebuilt from the attributes (used when offsets are unavailable). */
export function startTag(el: Element): string {
  let s = `<${el.name}`;
  for (const [k, v] of Object.entries(el.attribs)) s += v === '' ? ` ${k}` : ` ${k}="${v.replace(/"/g, '&quot;')}"`;
  return `${s}>`;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
