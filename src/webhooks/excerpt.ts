import { storableText } from '../text/storable';

// Above this share of undecodable or control characters (and more than a stray few) the answer is
// not text to show a person.
const BINARY_SHARE = 0.1;
const STRAY_UNREADABLE = 2;
const UNREADABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFD]/g;

/**
 * What the delivery log keeps of a receiver's answer: its first bytes as text, decoded in the
 * charset its Content-Type names (UTF-8 by default); an image, a compressed or any other binary
 * answer as a one-line description of it. Always storable text (docs/decisions.md, "Bytes from
 * outside"): one receiver's answer must never keep a delivery, or its neighbours, out of the log.
 */
export function responseExcerpt(body: Buffer, headers: Record<string, string | string[]>): string {
  if (body.length === 0) return '';
  const contentType = headerValue(headers['content-type']);
  const encoding = headerValue(headers['content-encoding']);
  const text = decode(body, charsetOf(contentType));
  // A character cut in half by the excerpt's byte limit decodes as one U+FFFD at the end: not binary.
  const unreadable = text.replace(/\uFFFD$/, '').match(UNREADABLE)?.length ?? 0;
  const compressed = encoding !== '' && encoding.toLowerCase() !== 'identity';
  if (compressed || unreadable > Math.max(STRAY_UNREADABLE, text.length * BINARY_SHARE)) {
    const described = [contentType && `Content-Type ${contentType}`, compressed && `Content-Encoding ${encoding}`]
      .filter(Boolean)
      .join(', ');
    return storableText(`[binary response body, first ${body.length} bytes${described ? `; ${described}` : ''}]`);
  }
  return storableText(text);
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    // An unknown charset label: read as UTF-8, as browsers fall back for a label they do not know.
    return new TextDecoder('utf-8').decode(body);
  }
}

function charsetOf(contentType: string): string {
  return /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType)?.[1] ?? 'utf-8';
}

function headerValue(value: string | string[] | undefined): string {
  const one = Array.isArray(value) ? value[0] : value;
  // A header value is Latin-1 from the wire; it is shown inside the description, bounded.
  return (one ?? '').trim().slice(0, 100);
}
