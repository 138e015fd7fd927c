import { timingSafeEqual } from 'node:crypto';

/**
 * Whether `given` is exactly the base64url text of `expected`, compared in constant time. Comparing
 * the text rather than decoded bytes matters: the last of 43 characters carries 4 bits of a 32-byte
 * MAC, so a decoder maps four different characters to the same bytes, and an altered cookie or link
 * would still pass.
 */
export function macTextMatches(given: string, expected: Buffer): boolean {
  const offered = Buffer.from(given);
  const canonical = Buffer.from(expected.toString('base64url'));
  return offered.length === canonical.length && timingSafeEqual(offered, canonical);
}
