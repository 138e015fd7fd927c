/**
 * Near-duplicate text detection for SEO_DUPLICATE_CONTENT (docs/analyzers.md, Site structure): a
 * 64-bit simhash over word 3-shingles, each shingle hashed with FNV-1a 64 of its UTF-8 bytes, and a
 * grouping of hashes within a few bits of each other that never compares every pair.
 *
 * FNV-1a 64 runs on four 16-bit limbs in plain numbers (no BigInt, no allocation per shingle): a
 * crawl of 100,000 pages hashes every shingle of every page.
 */

/** Words of a text as the simhash reads them: lower-cased letter/digit runs; each CJK character is a word. */
const WORD =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\s\p{P}\p{S}\p{C}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

export function textWords(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

// ── FNV-1a 64 ────────────────────────────────────────────────────────────────────────────────────

/** Where fnvJoined leaves the hash: [high 32 bits, low 32 bits]. */
const FNV_OUT = new Uint32Array(2);

/**
 * FNV-1a 64 of the UTF-8 bytes of words[start..end) joined by single spaces (a lone surrogate
 * counts as U+FFFD, as TextEncoder writes it). The state is four 16-bit limbs in local variables
 * (small integers throughout, which V8 keeps unboxed); each byte is xored in, then the state is
 * multiplied by the prime 0x100000001b3 = 0x1b3 + 2^40 (mod 2^64).
 */
function fnvJoined(words: readonly string[], start: number, end: number): void {
  // The offset basis 0xcbf29ce484222325, least significant limb first.
  let a = 0x2325;
  let b = 0x8422;
  let c = 0x9ce4;
  let d = 0xcbf2;
  for (let w = start; w < end; w++) {
    const text = words[w]!;
    for (let i = w === start ? 0 : -1; i < text.length; i++) {
      let code = i < 0 ? 0x20 : text.charCodeAt(i);
      let bytes = 0; // up to 4 UTF-8 bytes, first byte lowest
      let n = 1;
      if (code < 0x80) bytes = code;
      else if (code < 0x800) {
        bytes = 0xc0 | (code >>> 6) | ((0x80 | (code & 0x3f)) << 8);
        n = 2;
      } else {
        const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
        if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const cp = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          i++;
          bytes =
            0xf0 |
            (cp >>> 18) |
            ((0x80 | ((cp >>> 12) & 0x3f)) << 8) |
            ((0x80 | ((cp >>> 6) & 0x3f)) << 16) |
            ((0x80 | (cp & 0x3f)) << 24);
          n = 4;
        } else {
          if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
          bytes = 0xe0 | (code >>> 12) | ((0x80 | ((code >>> 6) & 0x3f)) << 8) | ((0x80 | (code & 0x3f)) << 16);
          n = 3;
        }
      }
      for (let k = 0; k < n; k++, bytes >>>= 8) {
        a ^= bytes & 0xff;
        const t0 = a * 0x1b3;
        const t1 = b * 0x1b3 + (t0 >>> 16);
        const t2 = c * 0x1b3 + (t1 >>> 16) + ((a & 0xff) << 8); // the 2^40 term: limb 0 moves up 2½ limbs
        const t3 = d * 0x1b3 + (t2 >>> 16) + (a >>> 8) + ((b & 0xff) << 8);
        a = t0 & 0xffff;
        b = t1 & 0xffff;
        c = t2 & 0xffff;
        d = t3 & 0xffff;
      }
    }
  }
  FNV_OUT[0] = (d << 16) | c;
  FNV_OUT[1] = (b << 16) | a;
}

/** FNV-1a 64 of the text's UTF-8 bytes. */
export function fnv1a64(text: string): bigint {
  fnvJoined([text], 0, 1);
  return (BigInt(FNV_OUT[0]!) << 32n) | BigInt(FNV_OUT[1]!);
}

/** The low 52 bits of FNV-1a 64 as a number (exact in a double): a compact key for a URL. */
export function hash52(text: string): number {
  fnvJoined([text], 0, 1);
  return (FNV_OUT[0]! & 0xfffff) * 0x1_0000_0000 + FNV_OUT[1]!;
}

// ── simhash ──────────────────────────────────────────────────────────────────────────────────────

export const SHINGLE_WORDS = 3;

/**
 * Per-bit counts of ones over many 32-bit words, kept as binary counters "sliced" across bit
 * planes: plane k holds bit k of all 32 counts, so adding a word is a ripple of xor/and carries
 * (about two steps on average) instead of 32 separate increments.
 */
class BitCounts {
  private readonly planes = new Int32Array(32);
  add(word: number): void {
    let carry = word | 0;
    for (let k = 0; carry !== 0; k++) {
      const next = this.planes[k]! & carry;
      this.planes[k]! ^= carry;
      carry = next;
    }
  }
  /** The word whose bit b is set when more than half of `total` added words had bit b set. */
  majority(total: number): number {
    let height = 32; // planes above the highest set bit of any count are empty
    while (height > 0 && this.planes[height - 1] === 0) height--;
    let out = 0;
    for (let b = 0; b < 32; b++) {
      let count = 0;
      for (let k = 0; k < height; k++) count += ((this.planes[k]! >>> b) & 1) << k;
      if (count * 2 > total) out |= 1 << b;
    }
    return out >>> 0;
  }
}

/**
 * 64-bit simhash of the word 3-shingles (fewer words: one shingle of them all), as 16 hex digits.
 * Bit i is set when more than half of the shingle hashes have it set.
 */
export function simhash(words: readonly string[]): string {
  const loCounts = new BitCounts();
  const hiCounts = new BitCounts();
  const shingles = Math.max(1, words.length - SHINGLE_WORDS + 1);
  for (let i = 0; i < shingles; i++) {
    fnvJoined(words, i, Math.min(words.length, i + SHINGLE_WORDS));
    hiCounts.add(FNV_OUT[0]!);
    loCounts.add(FNV_OUT[1]!);
  }
  return hex32(hiCounts.majority(shingles)) + hex32(loCounts.majority(shingles));
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}

function popcount32(n: number): number {
  n -= (n >>> 1) & 0x55555555;
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Bits that differ between two simhashes (16 hex digits each). */
export function hammingDistance(a: string, b: string): number {
  return (
    popcount32((parseInt(a.slice(0, 8), 16) ^ parseInt(b.slice(0, 8), 16)) >>> 0) +
    popcount32((parseInt(a.slice(8), 16) ^ parseInt(b.slice(8), 16)) >>> 0)
  );
}

// ── grouping ─────────────────────────────────────────────────────────────────────────────────────

/** Hashes within this many bits are near-duplicates; the 4 bands of 16 bits need it at most 3. */
export const NEAR_DUPLICATE_BITS = 3;
const BANDS = 4;
/** A band bucket larger than this is split again by the other 48 bits before comparing. */
const SMALL_BUCKET = 32;

class UnionFind {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    while (this.parent[i] !== i) {
      this.parent[i] = this.parent[this.parent[i]!]!; // path halving
      i = this.parent[i]!;
    }
    return i;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

function bucketsBy(items: Iterable<number>, key: (d: number) => number): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const d of items) {
    const k = key(d);
    const bucket = out.get(k);
    if (bucket) bucket.push(d);
    else out.set(k, [d]);
  }
  return out;
}

/** Runs of indices sharing a 16-bit key, found by one numeric sort (faster than a Map of 100,000 keys). */
function* runsOf(keys: Uint16Array): Generator<number[]> {
  const packed = Float64Array.from(keys, (k, d) => k * 0x1000000 + d).sort();
  for (let start = 0; start < packed.length;) {
    const key = Math.floor(packed[start]! / 0x1000000);
    let end = start + 1;
    while (end < packed.length && Math.floor(packed[end]! / 0x1000000) === key) end++;
    if (end - start > 1) yield Array.from(packed.subarray(start, end), (v) => v - key * 0x1000000);
    start = end;
  }
}

/**
 * Indices of the hashes (16 hex digits) linked by chains of pairs at most `maxBits` apart, as groups
 * of two or more (members ascending, groups by their first member). Pigeonhole banding: two hashes
 * within 3 bits agree exactly on at least one of four 16-bit bands, so only hashes sharing a band
 * value are compared; a large bucket is split the same way by its other 48 bits (four 12-bit
 * sub-bands, one of which such a pair also shares). Within a bucket a hash is compared with each
 * component found so far until one member is close enough, so a cluster of near-copies costs about
 * one comparison per hash.
 */
export function nearDuplicateGroups(
  hashes: readonly string[],
  maxBits = NEAR_DUPLICATE_BITS,
  /** Counts the pairs compared, where told (what the banding saves, shown by tests without a clock). */
  work?: { comparisons: number },
): number[][] {
  if (maxBits >= BANDS) throw new RangeError(`banding into ${BANDS} bands finds distances up to ${BANDS - 1} bits`);
  // Equal hashes are one point: the comparisons run over distinct values.
  const indexOf = new Map<string, number>();
  const members: number[][] = [];
  for (const [i, h] of hashes.entries()) {
    const d = indexOf.get(h);
    if (d === undefined) {
      indexOf.set(h, members.length);
      members.push([i]);
    } else members[d]!.push(i);
  }
  const distinct = [...indexOf.keys()];
  const hi = Uint32Array.from(distinct, (h) => parseInt(h.slice(0, 8), 16));
  const lo = Uint32Array.from(distinct, (h) => parseInt(h.slice(8), 16));
  // bands[b][d]: bits 63–48, 47–32, 31–16 and 15–0 of hash d.
  const bands = [0, 1, 2, 3].map((b) => Uint16Array.from(b < 2 ? hi : lo, (w) => (b % 2 === 0 ? w >>> 16 : w)));
  const sets = new UnionFind(distinct.length);
  const close = (a: number, b: number) => {
    if (work) work.comparisons++;
    return popcount32(hi[a]! ^ hi[b]!) + popcount32(lo[a]! ^ lo[b]!) <= maxBits;
  };
  for (let b = 0; b < BANDS; b++) {
    const [x, y, z] = [0, 1, 2, 3].filter((o) => o !== b).map((o) => bands[o]!);
    // The other 48 bits, x·y·z, as four 12-bit sub-bands.
    const subBands = [
      (d: number) => x![d]! >>> 4,
      (d: number) => ((x![d]! & 0xf) << 8) | (y![d]! >>> 8),
      (d: number) => ((y![d]! & 0xff) << 4) | (z![d]! >>> 12),
      (d: number) => z![d]! & 0xfff,
    ];
    for (const bucket of runsOf(bands[b]!)) {
      if (bucket.length <= SMALL_BUCKET) linkBucket(bucket, sets, close);
      else
        for (const sub of subBands)
          for (const part of bucketsBy(bucket, sub).values()) if (part.length > 1) linkBucket(part, sets, close);
    }
  }
  const byRoot = new Map<number, number[]>();
  for (let d = 0; d < distinct.length; d++) {
    const root = sets.find(d);
    const group = byRoot.get(root);
    if (group) for (const i of members[d]!) group.push(i);
    else byRoot.set(root, members[d]!);
  }
  return [...byRoot.values()]
    .filter((g) => g.length > 1)
    .map((g) => g.sort((a, b) => a - b))
    .sort((a, b) => a[0]! - b[0]!);
}

/** Unions the close hashes of one bucket; each component's members are already one set. */
function linkBucket(bucket: readonly number[], sets: UnionFind, close: (a: number, b: number) => boolean): void {
  if (bucket.length < 2) return;
  const components: number[][] = [];
  for (const d of bucket) {
    let joined: number[] | null = null;
    for (let c = 0; c < components.length; c++) {
      const component = components[c]!;
      if (sets.find(component[0]!) !== sets.find(d) && !component.some((m) => close(m, d))) continue;
      sets.union(component[0]!, d);
      if (joined === null) {
        component.push(d);
        joined = component;
      } else {
        for (const m of component) joined.push(m); // (no spread: a component may hold 100,000 hashes)
        components.splice(c--, 1);
      }
    }
    if (joined === null) components.push([d]);
  }
}
