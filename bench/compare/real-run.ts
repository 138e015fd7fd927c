/**
 * `compare:lighthouse -- --real`: the real sites of bench/compare/real-sites.json extracted and served
 * on loopback, and the expected agreement on them written for the regression test.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Pair } from './agreement';
import { buildExpected, CLASSES, type ExpectedAgreement } from './expected';
import { DEFAULT_CACHE_DIR, DEFAULT_MIRROR_DIR, ensureExtracted, loadManifest } from './real-sites';
import { serveDirectory } from './static-server';

/** Lighthouse's reports on the real sites, committed so the test needs no Chromium (bench/compare/pairs.ts forCache). */
export const REAL_LIGHTHOUSE_CACHE = path.join(__dirname, 'real-sites-lighthouse.json');
export const REAL_EXPECTED = path.join(__dirname, 'real-sites-expected.json');

export interface ServedRealSite {
  id: string;
  origin: string;
  /** Path prefixes not compared (served by other repositories in production). */
  elsewhere: string[];
  close(): Promise<void>;
}

/** Extracts what the cache lacks and serves each site (all of them, or those `only` names) on its own port. */
export async function serveRealSites(
  only: readonly string[],
  opts: { cacheDir?: string; mirrorDir?: string },
): Promise<ServedRealSite[]> {
  const sites = loadManifest().filter((s) => only.length === 0 || only.includes(s.id));
  const dirs = ensureExtracted(sites, {
    cacheDir: opts.cacheDir ?? DEFAULT_CACHE_DIR,
    mirrorDir: opts.mirrorDir ?? DEFAULT_MIRROR_DIR,
    log: (line) => console.log(`  ${line}`),
  });
  const served: ServedRealSite[] = [];
  for (const s of sites)
    served.push({ id: s.id, elsewhere: s.elsewhere ?? [], ...(await serveDirectory(dirs.get(s.id)!, s.origins)) });
  return served;
}

export function readExpected(file = REAL_EXPECTED): ExpectedAgreement | null {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as ExpectedAgreement) : null;
}

const ABOUT =
  'Expected agreement of our audit with Lighthouse 13 on the real sites of real-sites.json, from ' +
  '`npm run compare:lighthouse -- --real --pages 20 --write-expected` (Lighthouse reports: real-sites-lighthouse.json). ' +
  'Each disagreement carries the class it was given by hand: ' +
  Object.entries(CLASSES)
    .map(([k, v]) => `${k} (${v})`)
    .join('; ') +
  '. test/unit/compare-real-sites.test.ts fails when a pair that agreed no longer does.';

/** Writes the expected file, keeping the classes given before; says how many disagreements still need one. */
export function writeExpected(pairs: readonly Pair[], origins: ReadonlyMap<string, string>): string {
  const expected = buildExpected(pairs, origins, readExpected(), ABOUT);
  fs.writeFileSync(REAL_EXPECTED, `${JSON.stringify(expected, null, 2)}\n`);
  const open = expected.disagreements.filter((d) => d.class === 'unclassified').length;
  return `wrote ${path.relative(process.cwd(), REAL_EXPECTED)}: ${expected.disagreements.length} disagreement(s), ${open} unclassified`;
}
