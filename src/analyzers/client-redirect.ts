import { documentBaseUrl, metaHttpEquiv, snippet, truncate, type ParsedPage } from './parse';
import { headerValue } from './snapshot';
import { normalizeUrl } from './site-util';

/**
 * Client-side redirects (docs/analyzers.md, "Client-side redirects"): a page that answers 200 but
 * tells the browser to load another URL, by `<meta http-equiv="refresh" content="1; url=…">` or a
 * `Refresh` header. Static hosts such as GitHub Pages cannot answer 3xx, so site generators write
 * such pages for every moved URL; search engines treat them as redirects, and so does the audit.
 */

/** A refresh as the HTML standard's shared declarative refresh steps read it. */
export interface Refresh {
  readonly delaySeconds: number;
  /** The URL to load as written (relative or absolute); null: the page reloads itself. */
  readonly url: string | null;
}

const WHITESPACE = new Set(['\t', '\n', '\f', '\r', ' ']);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * The `content` of a refresh meta element (or a Refresh header's value) as browsers parse it, or null
 * when they ignore it: `5`, `0;url=/a`, `1; URL='/a'`, `0, /a` all count; `soon` and `;url=/a` do not.
 */
export function parseRefresh(input: string): Refresh | null {
  let at = 0;
  const skipWhitespace = () => {
    while (WHITESPACE.has(input[at]!)) at++;
  };
  skipWhitespace();
  const timeStart = at;
  while (isDigit(input[at])) at++;
  if (at === timeStart && input[at] !== '.') return null;
  const delaySeconds = at === timeStart ? 0 : Number(input.slice(timeStart, at));
  while (isDigit(input[at]) || input[at] === '.') at++;
  if (at < input.length) {
    if (input[at] !== ';' && input[at] !== ',' && !WHITESPACE.has(input[at]!)) return null;
    skipWhitespace();
    if (input[at] === ';' || input[at] === ',') at++;
    skipWhitespace();
  }
  if (at >= input.length) return { delaySeconds, url: null };
  return { delaySeconds, url: refreshUrl(input, at) };
}

/** The URL part from `at`: an optional `url=` prefix, then an optional quoted value (the standard's steps). */
function refreshUrl(input: string, start: number): string {
  let at = start;
  const whole = input.slice(start);
  const next = (letter: string) => (input[at]?.toLowerCase() === letter ? (at++, true) : false);
  if (next('u')) {
    if (!next('r') || !next('l')) return whole;
    while (WHITESPACE.has(input[at]!)) at++;
    if (input[at] !== '=') return whole;
    at++;
    while (WHITESPACE.has(input[at]!)) at++;
  }
  const quote = input[at] === '"' || input[at] === "'" ? input[at++]! : '';
  const url = input.slice(at);
  const end = quote === '' ? -1 : url.indexOf(quote);
  return end < 0 ? url : url.slice(0, end);
}

/** Where a page sends the browser, and what says so. */
export interface ClientRedirect {
  /** The absolute URL (no fragment) the page sends the browser to. */
  readonly to: string;
  readonly delaySeconds: number;
  /** The meta element as written, or the Refresh header line: a finding's evidence. */
  readonly declaration: string;
}

/**
 * The page's client-side redirect, or null: a 2xx HTML page whose refresh loads another URL. As in
 * browsers, a Refresh header wins over the markup, and of the meta elements the first valid one counts.
 */
export function clientRedirect(p: ParsedPage): ClientRedirect | null {
  let read = READ.get(p);
  if (read === undefined) READ.set(p, (read = readClientRedirect(p)));
  return read;
}

/** Read once per page: a dozen checks ask whether a page is a client-side redirect. */
const READ = new WeakMap<ParsedPage, ClientRedirect | null>();

function readClientRedirect(p: ParsedPage): ClientRedirect | null {
  if (!p.isHtml) return null;
  const header = headerValue(p.page.headers, 'refresh');
  const fromHeader = header === undefined ? null : parseRefresh(header);
  if (fromHeader) return redirectTo(p, fromHeader, p.url, truncate(`Refresh: ${header!.trim()}`, 200));
  for (const meta of metaHttpEquiv(p, 'refresh')) {
    const refresh = parseRefresh(meta.attribs.content ?? '');
    if (refresh) return redirectTo(p, refresh, documentBaseUrl(p), snippet(p, meta));
  }
  return null;
}

function redirectTo(p: ParsedPage, refresh: Refresh, base: string, declaration: string): ClientRedirect | null {
  if (refresh.url === null) return null;
  const to = normalizeUrl(refresh.url, base);
  if (to === null || !/^https?:/i.test(to) || to === (normalizeUrl(p.url) ?? p.url)) return null;
  return { to, delaySeconds: refresh.delaySeconds, declaration };
}

/**
 * A 2xx HTML page shown as itself, not a client-side redirect: the pages whose title, description,
 * headings, link texts and indexing directives the SEO checks judge (search engines follow a redirect
 * page instead of listing it).
 */
export function isContentPage(p: ParsedPage): boolean {
  return p.isHtml && clientRedirect(p) === null;
}
