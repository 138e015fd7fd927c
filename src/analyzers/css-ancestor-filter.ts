import type { Bloom, RequiredBits } from './css-selector';

/**
 * The conditional rules of one element signature (css-rules.ts), grouped by one bit each requires
 * of the ancestors' Bloom filter (css-selector.ts), so that an element visits only the rules its
 * ancestors may satisfy: an img under a page's 90 `.card-N__media img` rules visits the few whose
 * bit its ancestors have, not all 90 (docs/analyzers.md "Accuracy rules").
 */
export class AncestorFiltered<T> {
  /** Rules that require nothing of the ancestors. */
  readonly free: readonly T[];
  private readonly filtered: readonly T[];
  /** Per filtered rule, two words of its requirement, packed as index << 16 | bits. */
  private readonly packed: Int32Array;
  /** Per word of the filter, the bits that are some filtered rule's first required bit. */
  private readonly firstBits = new Int32Array(16);
  /** Filtered rules by their first required bit (w × 16 + b): ruleAt[bucketStart[p] … bucketStart[p+1]). */
  private readonly bucketStart = new Int32Array(257);
  private readonly ruleAt: Int32Array;

  constructor(rules: readonly { readonly rule: T; readonly required: RequiredBits | null }[]) {
    const filtered = rules.filter((r) => r.required !== null);
    this.free = rules.filter((r) => r.required === null).map((r) => r.rule);
    this.filtered = filtered.map((r) => r.rule);
    this.packed = new Int32Array(filtered.length * 2);
    const firstPosition = filtered.map(({ required }, i) => {
      const pairs = required!;
      for (let k = 0; k < 2 && k * 2 < pairs.length; k++)
        this.packed[i * 2 + k] = (pairs[k * 2]! << 16) | pairs[k * 2 + 1]!;
      const lowest = pairs[1]! & -pairs[1]!;
      this.firstBits[pairs[0]!]! |= lowest;
      return pairs[0]! * 16 + (31 - Math.clz32(lowest));
    });
    for (const p of firstPosition) this.bucketStart[p + 1]!++;
    for (let p = 0; p < 256; p++) this.bucketStart[p + 1]! += this.bucketStart[p]!;
    const next = this.bucketStart.slice(0, 256);
    this.ruleAt = new Int32Array(filtered.length);
    firstPosition.forEach((p, i) => (this.ruleAt[next[p]!++] = i));
  }

  /** Whether any rule requires something of the ancestors (then `ancestors` needs their filter). */
  get needsAncestors(): boolean {
    return this.filtered.length > 0;
  }

  /** Appends to `out` the filtered rules whose required bits are all among the ancestors'. */
  passing(ancestors: Bloom, out: T[]): void {
    for (let w = 0; w < 16; w++) {
      let bits = ancestors[w]! & this.firstBits[w]!;
      while (bits !== 0) {
        const lowest = bits & -bits;
        bits ^= lowest;
        const p = w * 16 + (31 - Math.clz32(lowest));
        for (let k = this.bucketStart[p]!; k < this.bucketStart[p + 1]!; k++) {
          const i = this.ruleAt[k]!;
          const first = this.packed[i * 2]!;
          const second = this.packed[i * 2 + 1]!;
          if ((ancestors[first >>> 16]! & first & 0xffff) !== (first & 0xffff)) continue;
          if ((ancestors[second >>> 16]! & second & 0xffff) !== (second & 0xffff)) continue;
          out.push(this.filtered[i]!);
        }
      }
    }
  }
}
