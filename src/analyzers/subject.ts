import type { Element } from 'domhandler';
import { textContent } from 'domutils';

/**
 * Finding subjects (docs/decisions.md, Monitoring → Fingerprints): what tells one finding of an
 * analyzer from another, read from the site's markup and addresses — never from evidence or message
 * text — so the same problem keeps its fingerprint whatever the crawl order or the wording.
 */

/** A resource's address as a subject: path + query when on the page's origin, else the full URL; no fragment. */
export function resourceSubject(ref: string, base: string): string {
  let u: URL;
  try {
    u = new URL(ref.trim(), base);
  } catch {
    return ref.trim();
  }
  u.hash = '';
  let origin = '';
  try {
    origin = new URL(base).origin;
  } catch {
    // an unparsable base: keep the full address
  }
  return u.origin === origin ? `${u.pathname}${u.search}` : u.href;
}

/** Attributes that name an element, most stable first; addresses among them are made origin-relative. */
const IDENTIFYING = ['id', 'name', 'href', 'src', 'action', 'for'] as const;
const ADDRESSES = new Set(['href', 'src', 'action']);
const TEXT_MAX = 80;

/**
 * An element's identity: its tag, its first identifying attribute (else every attribute but class and
 * style) and its text, lower-cased with white space collapsed (a link is its target and its words).
 */
export function elementSubject(el: Element, pageUrl: string): string {
  const text = textContent(el).replace(/\s+/g, ' ').trim().toLowerCase().slice(0, TEXT_MAX);
  const key = IDENTIFYING.find((a) => (el.attribs[a] ?? '').trim() !== '');
  let named: string;
  if (key !== undefined) {
    const v = el.attribs[key]!.trim();
    named = `${key}=${ADDRESSES.has(key) ? resourceSubject(v, pageUrl) : v}`;
  } else {
    named = Object.keys(el.attribs)
      .filter((n) => n !== 'class' && n !== 'style')
      .sort()
      .map((n) => `${n}=${el.attribs[n]!.trim()}`)
      .join(' ');
  }
  return [el.name, named, text].filter((s) => s !== '').join(' ');
}
