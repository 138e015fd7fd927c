import { createHash } from 'node:crypto';

/**
 * Deterministic randomness for test-mode audits: PRNG streams seeded by sha256(workspace, domain,
 * stream label), never Math.random. Every part of the audit draws from a stream of its own label,
 * so drawing more in one part never shifts what another part draws.
 */

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: Buffer) {
    this.a = seed.readUInt32BE(0);
    this.b = seed.readUInt32BE(4);
    this.c = seed.readUInt32BE(8);
    this.d = seed.readUInt32BE(12);
    for (let i = 0; i < 12; i++) this.next(); // sfc32 warm-up
  }

  /** sfc32: small, fast, good statistical quality, identical on every platform. [0, 1) */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** k distinct items, in their original order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const idx = items.map((_, i) => i);
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [idx[i], idx[j]] = [idx[j]!, idx[i]!];
    }
    return idx
      .slice(0, Math.max(0, Math.min(k, items.length)))
      .sort((x, y) => x - y)
      .map((i) => items[i]!);
  }

  /** Fisher–Yates, in place. */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
  }
}

/** The stream of one label for this workspace and domain; the same label always starts afresh. */
export type RngStreams = (label: string) => Rng;

export function seededStreams(workspaceId: string, domain: string): RngStreams {
  return (label) =>
    new Rng(
      createHash('sha256').update(`synthetic-audit/v1\u0000${workspaceId}\u0000${domain}\u0000${label}`).digest(),
    );
}
