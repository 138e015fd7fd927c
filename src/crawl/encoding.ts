import { isUtf8 } from 'node:buffer';

/**
 * Character decoding as browsers do it (docs/analyzers.md, "Decoding"). The encoding is sniffed by
 * html-encoding-sniffer (jsdom's implementation of the WHATWG encoding sniffing algorithm) and the
 * bytes are decoded by Node's TextDecoder (full ICU: every WHATWG encoding but "replacement").
 */

interface SniffOptions {
  xml?: boolean;
  transportLayerEncodingLabel?: string;
  defaultEncoding?: string;
}
/** The package ships no types: bytes in, a canonical WHATWG encoding name out. */
type SniffEncoding = (bytes: Uint8Array, options?: SniffOptions) => string;
const sniffEncoding = require('html-encoding-sniffer') as SniffEncoding;

type HeaderValue = string | readonly string[] | undefined;

/** How the bytes are sniffed: each kind of text has its own rules. */
type TextKind = 'html' | 'css' | 'other';

/** Returned by the sniffer when nothing in the bytes or the header names an encoding. */
const UNDECLARED = 'undeclared';

const decoders = new Map<string, TextDecoder>();

/**
 * The text of a (decompressed) body, with the encoding a browser would use:
 * - HTML: byte-order mark, then the Content-Type charset, then a `<meta charset>` or
 *   `<meta http-equiv="content-type">` in the first 1024 bytes (or an XML declaration), then
 *   UTF-8 when the bytes are valid UTF-8, else the WHATWG default windows-1252;
 * - CSS: byte-order mark, Content-Type charset, `@charset "…";`, then UTF-8;
 * - anything else (robots.txt, sitemaps, XML, JSON, text): byte-order mark, Content-Type charset,
 *   the XML declaration, then UTF-8.
 * Unknown labels are skipped, as browsers skip them. A leading byte-order mark stays in the text as
 * U+FEFF (BP_DOCTYPE_CHARSET counts it as a declaration).
 */
export function decodeText(bytes: Buffer, contentType: HeaderValue): string {
  return decodeAs(bodyEncoding(bytes, contentType), bytes);
}

/** The canonical WHATWG name of the encoding decodeText uses, e.g. "Shift_JIS", "windows-1252". */
export function bodyEncoding(bytes: Buffer, contentType: HeaderValue): string {
  const header = Array.isArray(contentType) ? contentType[0] : (contentType as string | undefined);
  const { type, charset } = parseContentType(header ?? '');
  const kind = textKind(type, bytes);
  const found = sniffEncoding(bytes, {
    xml: kind !== 'html',
    ...(charset !== undefined ? { transportLayerEncodingLabel: charset } : {}),
    defaultEncoding: UNDECLARED,
  });
  if (found !== UNDECLARED) return found;
  if (kind === 'css') return cssCharsetRule(bytes) ?? 'UTF-8';
  if (kind === 'other') return 'UTF-8';
  // Undeclared HTML. The spec lets a browser guess before its default; valid UTF-8 is kept as
  // UTF-8 (any ASCII page is), and only bytes that are not UTF-8 fall to windows-1252.
  return isUtf8(withoutCutSequence(bytes)) ? 'UTF-8' : 'windows-1252';
}

/** The media type (lower case) and the charset parameter of a Content-Type value. */
export function parseContentType(value: string): { type: string; charset?: string } {
  const type = value.split(';')[0]!.trim().toLowerCase();
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(value);
  const charset = match ? (match[1] ?? match[2]) : undefined;
  return charset ? { type, charset } : { type };
}

function textKind(type: string, bytes: Buffer): TextKind {
  if (type === 'text/html') return 'html';
  if (type === 'text/css') return 'css';
  // No type at all: HTML when it looks like markup, as isHtmlResponse decides (responses.ts).
  if (type === '' && /^(?:\xEF\xBB\xBF)?\s*<(?!\?xml)/.test(bytes.subarray(0, 512).toString('latin1'))) return 'html';
  return 'other';
}

/** CSS Syntax §3.2: `@charset "label";` at the very start of the stylesheet's bytes. */
function cssCharsetRule(bytes: Buffer): string | null {
  const match = /^@charset "([\x20\x21\x23-\x7e]*)";/.exec(bytes.subarray(0, 1024).toString('latin1'));
  const name = match ? encodingName(match[1]!) : null;
  return name === 'utf-16le' || name === 'utf-16be' ? 'UTF-8' : name;
}

/** The canonical name of an encoding label, or null when no encoding has that label. */
function encodingName(label: string): string | null {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

/**
 * The bytes without a UTF-8 sequence cut at the end (a body capped at its byte limit), so that a
 * cut character does not make a UTF-8 page look like something else.
 */
function withoutCutSequence(bytes: Buffer): Buffer {
  const end = bytes.length;
  for (let back = 1; back <= 3 && back <= end; back++) {
    const byte = bytes[end - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? bytes.subarray(0, end - back) : bytes;
  }
  return bytes;
}

/** The bytes decoded with an encoding sniffed above; "replacement" (e.g. ISO-2022-KR) is one U+FFFD. */
function decodeAs(encoding: string, bytes: Buffer): string {
  if (encoding === 'replacement') return bytes.length > 0 ? '\uFFFD' : '';
  let decoder = decoders.get(encoding);
  if (!decoder) {
    decoder = new TextDecoder(encoding, { ignoreBOM: true });
    decoders.set(encoding, decoder);
  }
  return decoder.decode(bytes);
}
