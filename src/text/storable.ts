// Text that came from outside the service (a crawled page, a webhook receiver's answer, a browser's
// console) made storable before it reaches Postgres (docs/decisions.md, "Bytes from outside").
// Postgres refuses U+0000 in text and jsonb, and jsonb refuses lone surrogates (which JSON.stringify
// writes as \ud800-style escapes). Both become U+FFFD, as a browser shows bytes it cannot decode.

const UNSTORABLE = /[\u0000\uD800-\uDFFF]/;
const UNSTORABLE_ALL = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const REPLACEMENT = '\uFFFD';

/** The text with every U+0000 and every lone surrogate replaced by U+FFFD (unchanged when it has none). */
export function storableText(text: string): string {
  // The common case costs one scan; surrogate pairs (emoji) pass the second regex unchanged.
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, REPLACEMENT) : text;
}

/** storableText, passing null and undefined through. */
export function storableOptionalText<T extends string | null | undefined>(text: T): T {
  return (typeof text === 'string' ? storableText(text) : text) as T;
}

/**
 * JSON text of a value whose strings, keys included, are storable: the one serialiser for JSON that
 * holds outside text (an audit's result, the browser stage's result), so no jsonb cast or column can
 * refuse it later.
 */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, storableReplacer);
}

function storableReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (!keys.some((key) => UNSTORABLE.test(key))) return value;
  // Rare: a key made of outside text. A copy with storable keys; its values are replaced on the way down.
  return Object.fromEntries(keys.map((key) => [storableText(key), (value as Record<string, unknown>)[key]]));
}
