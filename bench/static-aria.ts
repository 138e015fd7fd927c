import fs from 'node:fs';
import path from 'node:path';
import { ANALYZERS, runAnalyzers } from '../src/analyzers';
import { parsePages } from '../src/analyzers/parse';
import type { CrawlSnapshot, SnapshotPage } from '../src/analyzers/snapshot';
import type { Analyzer } from '../src/analyzers/types';

/**
 * `node --import tsx bench/static-aria.ts`: what the static ARIA and heading-order rules
 * (A11Y_ARIA_INVALID, A11Y_HEADING_ORDER: a walk of every element of every page) add to the HTML
 * analysis, on the fixture sites' HTML and a large generated page: the whole analysis with and without
 * them (alternating rounds, so machine load hits both), and, on pages parsed once, the two rules'
 * own observe time beside that of every other analyzer (the steadier figure on a busy machine).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);
const SITES = path.join(__dirname, '..', 'test', 'fixtures', 'sites');
const ORIGIN = 'https://bench.example';

function htmlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? htmlFiles(p) : e.name.endsWith('.html') ? [p] : [];
  });
}

/** A long article page: 400 sections of headings, paragraphs, links, buttons and ARIA widgets. */
function largePage(): string {
  const section = (i: number) =>
    `<section aria-labelledby="s${i}"><h2 id="s${i}">Section ${i}</h2><h3>Part</h3><p>Text with a <a href="/a${i}">link</a> ` +
    `and <span aria-describedby="s${i}">a note</span>.</p><div role="tablist"><button role="tab" aria-selected="true" ` +
    `aria-controls="p${i}">Tab</button></div><div id="p${i}" role="tabpanel">Panel</div></section>`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Large</title></head><body><h1>Large</h1>${Array.from({ length: 400 }, (_, i) => section(i)).join('')}</body></html>`;
}

function snapshot(): CrawlSnapshot {
  const bodies = [...htmlFiles(SITES).map((f) => fs.readFileSync(f, 'utf8')), largePage()];
  const pages: SnapshotPage[] = bodies.map((body, i) => ({
    url: `${ORIGIN}/p${i}`,
    finalUrl: `${ORIGIN}/p${i}`,
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body,
    ttfbMs: 100,
    bytes: body.length,
    depth: 1,
    redirectChain: [],
  }));
  return { origin: ORIGIN, robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' }, pages };
}

/** CPU time of this process in ms: on a shared, loaded machine it is steadier than wall time. */
function time(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Each analyzer's observe on every parsed page, as runAnalyzers does between parsing and finishing. */
function observeAll(list: readonly Analyzer[], pages: ReturnType<typeof parsePages>): void {
  for (const p of pages) for (const a of list) a.observe(p);
}

function main(): void {
  const snap = snapshot();
  const isNew = (a: Analyzer) => a.code === 'A11Y_ARIA_INVALID' || a.code === 'A11Y_HEADING_ORDER';
  const without = ANALYZERS.filter((a) => !isNew(a));
  runAnalyzers(snap);
  runAnalyzers(snap, { analyzers: without });
  const all: number[] = [];
  const base: number[] = [];
  const rules: number[] = [];
  const others: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    base.push(time(() => runAnalyzers(snap, { analyzers: without })));
    all.push(time(() => runAnalyzers(snap)));
    // Fresh parses each round: the page-CSS cache of a parsed page would favour whichever ran second.
    const fresh = parsePages(snap.pages);
    others.push(time(() => observeAll(without, fresh)));
    rules.push(time(() => observeAll(ANALYZERS.filter(isNew), fresh)));
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const n = snap.pages.length;
  const kib = Math.round(snap.pages.reduce((s, p) => s + p.bytes, 0) / 1024);
  console.log(`${n} pages (${kib} KiB of HTML), median CPU time of ${ROUNDS} rounds`);
  console.log(`  registry without the two rules: ${(median(base) / n).toFixed(2)} ms/page`);
  console.log(`  full registry:                  ${(median(all) / n).toFixed(2)} ms/page`);
  console.log(`  ratio full / without:           ${(median(all) / median(base)).toFixed(2)}`);
  console.log(`  observe, the two rules:         ${(median(rules) / n).toFixed(3)} ms/page`);
  console.log(`  observe, every other analyzer:  ${(median(others) / n).toFixed(3)} ms/page`);
  console.log(`  ratio rules / others:           ${(median(rules) / median(others)).toFixed(2)}`);
}

main();
