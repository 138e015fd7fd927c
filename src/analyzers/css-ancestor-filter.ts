import type { Bloom, RequiredBits } from './css-selector';

/**
 * The conditional rules of one element signature (css-rules.ts) that require something of the
 * ancestors' Bloom filter (css-selector.ts), checked against it before css-select runs. Many such
 * rules are grouped by one bit each requires, so that an element visits only those its ancestors may
 * satisfy: an img under a page's 90 `.card-N__media img` rules visits the few whose bit its ancestors
 * have, not all 90 (docs/analyzers.md "Accuracy rules").
 */
export class AncestorFiltered<T> {
  /** Rules that require nothing of the ancestors. */
  readonly free: readonly T[];
  private readonly filtered: readonly T[];
  /** Per filtered rule, two words of its requirement, packed as index << 16 | bits. */
  private readonly packed: Int32Array;
  /** With many filtered rules: per word of the filter, the bits that are some rule's first required bit… */
  private readonly firstBits: Int32Array | null = null;
  /** …and the rules by that bit (w × 16 + b): ruleAt[bucketStart[p] … bucketStart[p+1]). */
  private readonly bucketStart: Int32Array | null = null;
  private readonly ruleAt: Int32Array | null = null;

  constructor(rules: readonly { readonly rule: T; readonly required: RequiredBits | null }[]) {
    const filtered = rules.filter((r) => r.required !== null);
    this.free = rules.filter((r) => r.required === null).map((r) => r.rule);
    this.filtered = filtered.map((r) => r.rule);
    this.packed = new Int32Array(filtered.length * 2);
    filtered.forEach(({ required }, i) => {
      for (let k = 0; k < 2 && k * 2 < required!.length; k++)
        this.packed[i * 2 + k] = (required![k * 2]! << 16) | required![k * 2 + 1]!;
    });
    // Buckets cost a kilobyte: worth it only where they save many checks.
    if (filtered.length <= BUCKETED_FROM) return;
    const firstBits = (this.firstBits = new Int32Array(16));
    const bucketStart = (this.bucketStart = new Int32Array(257));
    const firstPosition = filtered.map(({ required }) => {
      const lowest = required![1]! & -required![1]!;
      firstBits[required![0]!]! |= lowest;
      return required![0]! * 16 + (31 - Math.clz32(lowest));
    });
    for (const p of firstPosition) bucketStart[p + 1]!++;
    for (let p = 0; p < 256; p++) bucketStart[p + 1]! += bucketStart[p]!;
    const next = bucketStart.slice(0, 256);
    const ruleAt = (this.ruleAt = new Int32Array(filtered.length));
    firstPosition.forEach((p, i) => (ruleAt[next[p]!++] = i));
  }

  /** Whether any rule requires something of the ancestors (then `passing` needs their filter). */
  get needsAncestors(): boolean {
    return this.filtered.length > 0;
  }

  /** Appends to `out` the filtered rules whose required bits are all among the ancestors'. */
  passing(ancestors: Bloom, out: T[]): void {
    const { firstBits, bucketStart, ruleAt } = this;
    if (firstBits === null || bucketStart === null || ruleAt === null) {
      for (let i = 0; i < this.filtered.length; i++) this.check(i, ancestors, out);
      return;
    }
    for (let w = 0; w < 16; w++) {
      let bits = ancestors[w]! & firstBits[w]!;
      while (bits !== 0) {
        const lowest = bits & -bits;
        bits ^= lowest;
        const p = w * 16 + (31 - Math.clz32(lowest));
        for (let k = bucketStart[p]!; k < bucketStart[p + 1]!; k++) this.check(ruleAt[k]!, ancestors, out);
      }
    }
  }

  private check(i: number, ancestors: Bloom, out: T[]): void {
    const first = this.packed[i * 2]!;
    const second = this.packed[i * 2 + 1]!;
    if ((ancestors[first >>> 16]! & first & 0xffff) !== (first & 0xffff)) return;
    if ((ancestors[second >>> 16]! & second & 0xffff) !== (second & 0xffff)) return;
    out.push(this.filtered[i]!);
  }
}

/** Filtered rules of one signature from which they are grouped by bit. */
const BUCKETED_FROM = 16;
