import { fileCycles, folderCycles, importsBetween, readSources } from '../support/code-structure';

/**
 * `node --import tsx test/tools/code-structure.ts`: the figures the structure rules are about —
 * production files over 300 lines, functions over 80 lines, folder-level import cycles with
 * the imports that make them, and file-level import cycles.
 */
const sources = readSources(80);
const big = sources.filter((s) => s.lines > 300).sort((a, b) => b.lines - a.lines);
console.log(`production files: ${sources.length}, over 300 lines: ${big.length}`);
for (const s of big) console.log(`  ${String(s.lines).padStart(5)}  ${s.file}`);
const long = sources
  .flatMap((s) => s.longFunctions.map((f) => ({ file: s.file, ...f })))
  .sort((a, b) => b.lines - a.lines);
console.log(`functions over 80 lines: ${long.length}`);
for (const f of long) console.log(`  ${String(f.lines).padStart(5)}  ${f.file} ${f.name}`);
const cycles = folderCycles(sources);
console.log(`folder-level import cycles: ${cycles.length}`);
for (const cycle of cycles) {
  console.log(`  ${cycle.join(' ↔ ')}`);
  for (const from of cycle)
    for (const to of cycle)
      if (from !== to) for (const line of importsBetween(sources, from, to)) console.log(`      ${line}`);
}
const files = fileCycles(sources);
console.log(`file-level import cycles: ${files.length}`);
for (const cycle of files) console.log(`  ${cycle.join(' ↔ ')}`);
