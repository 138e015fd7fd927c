import assert from 'node:assert/strict';
import { fnv1a64, hammingDistance, hash52, nearDuplicateGroups, simhash, textWords } from '../../src/analyzers/simhash';

/** FNV-1a 64 as the specification writes it, with BigInt over TextEncoder's bytes. */
function fnvReference(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

/** simhash from its definition: majority vote of each bit over the word 3-shingles' FNV-1a 64. */
function simhashReference(words: string[]): string {
  const shingles: string[] = [];
  for (let i = 0; i + 3 <= words.length; i++) shingles.push(words.slice(i, i + 3).join(' '));
  if (shingles.length === 0) shingles.push(words.join(' '));
  let out = 0n;
  for (let b = 0n; b < 64n; b++) {
    const ones = shingles.filter((s) => (fnvReference(s) >> b) & 1n).length;
    if (ones * 2 > shingles.length) out |= 1n << b;
  }
  return out.toString(16).padStart(16, '0');
}

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (n: bigint) => n.toString(16).padStart(16, '0');
const flip = (h: string, ...bits: number[]) => hex(bits.reduce((v, b) => v ^ (1n << BigInt(b)), BigInt(`0x${h}`)));

const LOREM =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat'.split(
    ' ',
  );
const text = (n: number) => Array.from({ length: n }, (_, i) => `${LOREM[i % LOREM.length]}${Math.floor(i / 7)}`);

describe('simhash', () => {
  it('FNV-1a 64 matches the published test vectors and a BigInt reference on UTF-8 bytes', () => {
    assert.equal(fnv1a64(''), 0xcbf29ce484222325n);
    assert.equal(fnv1a64('a'), 0xaf63dc4c8601ec8cn);
    assert.equal(fnv1a64('foobar'), 0x85944171f73967e8n);
    for (const s of [
      'hello world',
      'café',
      '日本語のテキスト',
      'emoji 😀 ok',
      'lone \ud800 surrogate',
      'ß'.repeat(100),
    ])
      assert.equal(fnv1a64(s), fnvReference(s), s);
    assert.equal(hash52('https://example.com/a'), Number(fnvReference('https://example.com/a') & 0xfffffffffffffn));
  });

  it('reads words as lower-cased letter and digit runs, each CJK character a word', () => {
    assert.deepEqual(textWords('Hello, World! 日本語 Café-au-lait 42 — x_y'), [
      'hello',
      'world',
      '日',
      '本',
      '語',
      'café',
      'au',
      'lait',
      '42',
      'x',
      'y',
    ]);
    assert.deepEqual(textWords('  \n '), []);
  });

  it('is the majority vote of the 3-shingle hashes, exactly as defined', () => {
    for (const words of [
      text(5),
      text(50),
      textWords('the quick brown fox jumps over the lazy dog'),
      ['one'],
      ['a', 'b'],
    ])
      assert.equal(simhash(words), simhashReference(words), words.join(' '));
    assert.match(simhash(text(80)), /^[0-9a-f]{16}$/);
  });

  it('keeps near-identical long texts within 3 bits and tells different texts apart', () => {
    const base = text(120);
    const oneWord = [...base];
    oneWord[60] = 'changed';
    assert.equal(hammingDistance(simhash(base), simhash(base)), 0);
    assert.equal(hammingDistance(simhash(base), simhash(oneWord)), 2);
    // Short texts are fragile: one word in 60 moves 6 bits (hence the 50-word minimum and 3-bit limit).
    const short = text(60);
    const shortChanged = [...short];
    shortChanged[30] = 'changed';
    assert.equal(hammingDistance(simhash(short), simhash(shortChanged)), 6);
    const other = textWords('a completely different text about gardening, tomatoes, soil and the weather '.repeat(8));
    assert.ok(hammingDistance(simhash(base), simhash(other)) > 10);
  });

  it('counts differing bits', () => {
    assert.equal(hammingDistance('0000000000000000', 'ffffffffffffffff'), 64);
    assert.equal(hammingDistance('8000000000000001', '0000000000000000'), 2);
    assert.equal(hammingDistance('0123456789abcdef', '0123456789abcdef'), 0);
  });
});

describe('nearDuplicateGroups', () => {
  const base = '0123456789abcdef';

  it('groups hashes within 3 bits (however the bits fall across bands), chains them, and keeps equal hashes together', () => {
    const hashes = [
      base, // 0
      flip(base, 0, 17, 40), // 1: 3 bits in three bands: shares the fourth
      flip(base, 0, 16, 32, 48), // 2: 4 bits, one per band: not within 3 of 0
      'ffffffffffffffff', // 3: alone
      flip(flip(base, 0, 17, 40), 60, 61, 62), // 4: 3 bits from 1, 6 from 0: chained through 1
      'ffffffffffffffff', // 5: equal to 3
    ];
    assert.deepEqual(nearDuplicateGroups(hashes), [
      [0, 1, 4],
      [3, 5],
    ]);
    assert.deepEqual(nearDuplicateGroups([base, flip(base, 5)], 0), []);
    assert.deepEqual(nearDuplicateGroups([]), []);
    assert.throws(() => nearDuplicateGroups([base], 4), RangeError);
  });

  it('finds exactly the components a comparison of every pair finds', () => {
    const random = rng(7);
    const word = () => Math.floor(random() * 2 ** 32);
    const hashes: string[] = [];
    for (let i = 0; i < 400; i++) hashes.push(hex((BigInt(word()) << 32n) | BigInt(word())));
    // Near copies of some of them, 0 to 5 bits off, and crowded buckets: many hashes sharing a band.
    for (let i = 0; i < 600; i++) {
      const bits = Array.from({ length: Math.floor(random() * 6) }, () => Math.floor(random() * 64));
      hashes.push(flip(hashes[Math.floor(random() * hashes.length)]!, ...bits));
    }
    for (let i = 0; i < 100; i++) hashes.push(`beef${hex(BigInt(word()) * 65536n + BigInt(word() & 0xffff)).slice(4)}`);
    const parent = hashes.map((_, i) => i);
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
    for (let i = 0; i < hashes.length; i++)
      for (let j = i + 1; j < hashes.length; j++)
        if (hammingDistance(hashes[i]!, hashes[j]!) <= 3)
          parent[Math.max(find(i), find(j))] = Math.min(find(i), find(j));
    const expected = new Map<number, number[]>();
    hashes.forEach((_, i) => expected.set(find(i), [...(expected.get(find(i)) ?? []), i]));
    const brute = [...expected.values()].filter((g) => g.length > 1).sort((a, b) => a[0]! - b[0]!);
    assert.ok(brute.length > 50);
    assert.deepEqual(nearDuplicateGroups(hashes), brute);
  });

  it('groups 100,000 hashes without comparing every pair', () => {
    const random = rng(42);
    const word = () => Math.floor(random() * 2 ** 32);
    const hashes = Array.from({ length: 100_000 }, () => hex((BigInt(word()) << 32n) | BigInt(word())));
    // 20,000 near copies of one page (a template) and 20,000 far-apart hashes crowding one band.
    for (let i = 0; i < 20_000; i++) hashes[i] = flip(base, ...(i % 4 === 0 ? [] : [i % 64]));
    for (let i = 20_000; i < 40_000; i++) hashes[i] = `abcd${hashes[i]!.slice(4)}`;
    const work = { comparisons: 0 };
    const groups = nearDuplicateGroups(hashes, undefined, work);
    assert.equal(groups[0]!.length, 20_000);
    // Every pair would be 5·10⁹ comparisons; the crowded band alone, 2·10⁸.
    assert.ok(work.comparisons < 1_000_000, `${work.comparisons} comparisons`);
  });
});
