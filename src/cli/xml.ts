/**
 * Just enough XML writing for the JUnit report: escaped text and attributes, elements. Text from the
 * audited site (titles, URLs, evidence) may hold anything, so characters XML 1.0 cannot carry at all
 * (most C0 controls, lone surrogates, U+FFFE/U+FFFF) become U+FFFD, and in attributes tabs and line
 * breaks are written as character references so that parsers do not normalise them to spaces.
 */

const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

export function escapeText(value: string): string {
  return value.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]!);
}

export function escapeAttribute(value: string): string {
  return value.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"'\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c]!);
}

export type Attributes = Record<string, string | number | undefined>;

/** `<name a="…">children</name>`, or `<name a="…"/>` without children; undefined attributes are left out. */
export function element(name: string, attributes: Attributes = {}, children: readonly string[] = []): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${escapeAttribute(String(value))}"`)
    .join('');
  return children.length === 0 ? `<${name}${attrs}/>` : `<${name}${attrs}>${children.join('')}</${name}>`;
}

/** Element content: escaped text (pass it as one of `element`'s children). */
export function text(value: string): string {
  return escapeText(value);
}
