import type { Element } from 'domhandler';
import { parseStylesheet } from '../src/analyzers/css-sheet';
import { pageCss } from '../src/analyzers/page-css';
import { parsePage, stylesheetTexts, type StylesheetTexts } from '../src/analyzers/parse';
import type { SnapshotPage } from '../src/analyzers/snapshot';
import { pageHtml } from './wholesite-site';

/**
 * `npm run bench:css`: what the CSS cascade (src/analyzers/page-css.ts) costs per page, beside the
 * HTML parse alone measured in the same process on the same pages (alternating, so machine load hits
 * both). Each page is asked what the analyzers could ask at most: isHidden for every element and
 * isSizedByCss for every image. Linked stylesheets are parsed once per analysis, so their parse is
 * reported apart. Target (docs/analyzers.md): ≤ 1 ms per page, the heavy one included.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);
const PAGES = Number(process.env.BENCH_PAGES || 200);
const ORIGIN = 'https://bench.example';

/** Components of the heavy stylesheet (about 0.4 KB of CSS each). */
const COMPONENTS = 90;

/** The bench site's /assets/site.css (bench/wholesite-site.ts). */
const SITE_CSS = 'body{font:16px/1.5 sans-serif;margin:0 auto;max-width:60em}nav li{display:inline;margin-right:1em}';

/** About 50 KB of framework-like CSS: utilities, components, breakpoints, a layer, states and pseudo-elements. */
function heavyCss(): string {
  const out: string[] = [
    '@layer reset, base;',
    '@layer reset { *,::before{box-sizing:border-box} [hidden]{display:none} }',
  ];
  const displays = ['block', 'flex', 'grid', 'inline', 'inline-block', 'none', 'contents'];
  for (const [prefix, query] of [
    ['', ''],
    ['sm\\:', '(min-width: 640px)'],
    ['md\\:', '(min-width: 768px)'],
    ['max-md\\:', '(max-width: 767.98px)'],
  ] as const) {
    const rules = displays.map((d) => `.${prefix}${d}{display:${d}}`);
    for (let w = 1; w <= 24; w++) rules.push(`.${prefix}w-${w}{width:${w * 4}px}.${prefix}h-${w}{height:${w * 4}px}`);
    for (let m = 0; m <= 12; m++) rules.push(`.${prefix}m-${m}{margin:${m * 4}px}.${prefix}p-${m}{padding:${m * 4}px}`);
    out.push(query ? `@media ${query}{${rules.join('')}}` : rules.join(''));
  }
  for (let c = 0; c < COMPONENTS; c++) {
    const b = `.c${c}`;
    out.push(
      `${b}{color:#${(c * 4099).toString(16).padStart(6, '0').slice(0, 6)};border:1px solid #ddd;border-radius:4px}`,
      `${b} ${b}__title{font-size:1.25rem;font-weight:600;line-height:1.3}`,
      `${b} > ${b}__body p:not(:last-child){margin-bottom:.5rem}`,
      `${b}:hover ${b}__title,${b}:focus-within ${b}__title{text-decoration:underline}`,
      `${b}__media img{width:100%;height:auto}${b}--compact ${b}__media{display:none}`,
      `${b}__icon::before{content:"";display:inline-block;width:1em;height:1em}`,
      `@media (min-width: 1024px){${b}{display:grid;grid-template-columns:1fr 2fr}}`,
    );
  }
  out.push('.no-js .menu-toggle{display:none}', '@media print{.site-nav,.site-footer{display:none}}');
  out.push(
    'input[type="checkbox"].toggle{position:absolute;opacity:0}',
    '[aria-expanded="false"] + .submenu{display:none}',
  );
  return out.join('\n');
}

/** About 1,000 elements using the heavy CSS's classes. */
function heavyHtml(): string {
  const nav = Array.from({ length: 40 }, (_, i) => `<li class="p-${i % 12}"><a href="/s/${i}">Section ${i}</a></li>`);
  const cards = Array.from({ length: 100 }, (_, i) => {
    const c = `c${i % COMPONENTS}`;
    return (
      `<article class="${c} ${i % 3 ? 'md:flex' : 'max-md:none'} m-${i % 12}"><div class="${c}__media">` +
      `<img src="/i/${i}.jpg" alt="Item ${i}" class="w-${(i % 24) + 1} h-${(i % 24) + 1}"></div>` +
      `<div class="${c}__body"><h3 class="${c}__title">Item ${i}</h3><p>Text <span class="${c}__icon"></span></p>` +
      `<a href="/i/${i}" class="inline-block">More</a></div></article>`
    );
  });
  return (
    `<!doctype html><html lang="en" class="no-js"><head><meta charset="utf-8"><title>Heavy</title>` +
    `<link rel="stylesheet" href="/heavy.css"><script>document.documentElement.className=` +
    `document.documentElement.className.replace('no-js','js')</script></head><body>` +
    `<header class="site-nav"><button class="menu-toggle" aria-expanded="false">Menu</button>` +
    `<ul class="submenu flex">${nav.join('')}</ul></header><main class="grid">${cards.join('')}</main>` +
    `<form><input type="checkbox" class="toggle"><input type="search" class="w-12" aria-label="Search"></form>` +
    `<footer class="site-footer"><p hidden>Old footer</p></footer></body></html>`
  );
}

function snapshotPage(i: number, body: string): SnapshotPage {
  const url = `${ORIGIN}/p/${i}`;
  const headers = { 'content-type': 'text/html; charset=utf-8' };
  return { url, finalUrl: url, status: 200, headers, body, ttfbMs: 1, bytes: body.length, depth: 1, redirectChain: [] };
}

function elementsOf(p: ReturnType<typeof parsePage>): Element[] {
  const out: Element[] = [];
  const walk = (nodes: readonly unknown[]) => {
    for (const node of nodes as Element[])
      if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
        out.push(node);
        walk(node.children);
      }
  };
  walk(p.doc?.children ?? []);
  return out;
}

interface Figures {
  /** Median over the rounds of µs per page, and the best round (the least disturbed by machine load). */
  parse: number;
  cascade: number;
  bestParse: number;
  bestCascade: number;
  elements: number;
}

/** µs per page of the parse alone and of the cascade's work on the parsed page. */
function measure(pages: SnapshotPage[], texts: StylesheetTexts): Figures {
  const parseRounds: number[] = [];
  const cascadeRounds: number[] = [];
  let elements = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let parseNs = 0n;
    let cascadeNs = 0n;
    for (const page of pages) {
      const t0 = process.hrtime.bigint();
      const p = parsePage(page, texts);
      const t1 = process.hrtime.bigint();
      const all = elementsOf(p);
      const t2 = process.hrtime.bigint();
      const css = pageCss(p);
      for (const el of all) css.isHidden(el);
      for (const img of p.elements('img')) css.isSizedByCss(img);
      const t3 = process.hrtime.bigint();
      parseNs += t1 - t0;
      cascadeNs += t3 - t2;
      elements = all.length;
    }
    parseRounds.push(Number(parseNs) / 1000 / pages.length);
    cascadeRounds.push(Number(cascadeNs) / 1000 / pages.length);
  }
  return {
    parse: median(parseRounds),
    cascade: median(cascadeRounds),
    bestParse: Math.min(...parseRounds),
    bestCascade: Math.min(...cascadeRounds),
    elements,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function main(): void {
  const heavy = heavyCss();
  const cases = [
    {
      name: 'typical (bench site page)',
      pages: Array.from({ length: PAGES }, (_, i) => snapshotPage(i, pageHtml(i, 500))),
      texts: stylesheetTexts({ stylesheets: [{ url: `${ORIGIN}/assets/site.css`, text: SITE_CSS }] }),
    },
    {
      name: 'heavy (50 KB CSS)',
      pages: Array.from({ length: Math.max(1, PAGES / 4) }, (_, i) => snapshotPage(i, heavyHtml())),
      texts: stylesheetTexts({ stylesheets: [{ url: `${ORIGIN}/heavy.css`, text: heavy }] }),
    },
  ];
  console.log(`css cascade: ${ROUNDS} rounds; per page: isHidden on every element, isSizedByCss on every img`);
  const verdicts: string[] = [];
  for (const c of cases) {
    measure(c.pages.slice(0, 5), c.texts); // warm up: JIT, the analysis' parsed stylesheets
    const f = measure(c.pages, c.texts);
    const within = f.cascade <= 1000 ? 'within' : 'OVER';
    verdicts.push(`${c.name.split(' ')[0]} page ${f.cascade.toFixed(1)} µs: ${within} the 1 ms target`);
    console.log(
      `  ${c.name.padEnd(26)} ${String(f.elements).padStart(4)} elements: cascade ${f.cascade.toFixed(1)} µs median, ` +
        `${f.bestCascade.toFixed(1)} best; HTML parse alone ${f.parse.toFixed(1)} µs median, ${f.bestParse.toFixed(1)} ` +
        `best; ratio ×${(f.cascade / f.parse).toFixed(2)} median, ×${(f.bestCascade / f.bestParse).toFixed(2)} best`,
    );
  }
  const sheetRounds = Array.from({ length: ROUNDS }, () => {
    const start = process.hrtime.bigint();
    parseStylesheet(heavy);
    return Number(process.hrtime.bigint() - start) / 1000;
  });
  console.log(
    `  parsing the ${(heavy.length / 1000).toFixed(1)} KB stylesheet, once per analysis: ${median(sheetRounds).toFixed(0)} µs`,
  );
  for (const v of verdicts) console.log(v);
}

main();
