/**
 * The shortcuts of the cascade (src/analyzers/css-rules.ts, css-ancestor-filter.ts, css-selector.ts;
 * docs/analyzers.md "Accuracy rules"): rules found by the element's tag, id and classes, plain
 * selectors decided by them, `[attribute]` tests folded in, the ancestors' Bloom filter, and rules
 * shared by the pages that have the same stylesheets. Whatever they skip, an element must be hidden
 * exactly when css-select itself, asked about every rule, finds a matching rule on it or an ancestor.
 */
import assert from 'node:assert/strict';
import { compile } from 'css-select';
import type { Element } from 'domhandler';
import { findOne } from 'domutils';
import { pageCss } from '../../src/analyzers/page-css';
import { parsePage, type ParsedPage } from '../../src/analyzers/parse';
import type { SnapshotPage } from '../../src/analyzers/snapshot';

let n = 0;
function page(html: string): ParsedPage {
  const url = `https://example.com/r${n++}`;
  const snapshot: SnapshotPage = {
    url,
    finalUrl: url,
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: html,
    ttfbMs: 1,
    bytes: html.length,
    depth: 1,
    redirectChain: [],
  };
  return parsePage(snapshot);
}

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function random(seed: number): (below: number) => number {
  let a = seed >>> 0;
  return (below) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

const TAGS = ['div', 'span', 'p', 'a', 'img', 'li', 'section'];
/** Ten attributes: more than the cascade folds into a signature, so some are matched one by one. */
const FLAGS = Array.from({ length: 10 }, (_, i) => `data-f${i}`);

function markup(pick: (below: number) => number, depth: number): string {
  const parts: string[] = [];
  for (let i = pick(4) + 1; i > 0; i--) {
    const tag = TAGS[pick(TAGS.length)]!;
    const classes = Array.from({ length: pick(4) }, () => `c${pick(8)}`);
    const attributes = [
      classes.length > 0 ? ` class="${classes.join(pick(2) ? ' ' : '  \t')}"` : '',
      pick(5) === 0 ? ` id="i${pick(4)}"` : '',
      pick(3) === 0 ? ` ${FLAGS[pick(FLAGS.length)]}` : '',
      pick(6) === 0 ? ` data-v="${pick(2)}"` : '',
    ].join('');
    const inner = depth > 0 && tag !== 'img' ? markup(pick, depth - 1) : 'x';
    parts.push(tag === 'img' ? `<img${attributes}>` : `<${tag}${attributes}>${inner}</${tag}>`);
  }
  return parts.join('');
}

function selector(pick: (below: number) => number): string {
  const cls = () => `.c${pick(8)}`;
  const tag = () => TAGS[pick(TAGS.length)]!;
  const flag = () => `[${FLAGS[pick(FLAGS.length)]}]`;
  const forms = [
    () => cls(),
    () => `${tag()}${cls()}${cls()}`,
    () => `#i${pick(4)}`,
    () => `#i${pick(4)}${cls()}`,
    () => `#i${pick(4)}#i${pick(4)}`,
    () => flag(),
    () => `${tag()}${flag()}${cls()}`,
    () => `${cls()} ${cls()}`,
    () => `${cls()} > ${tag()}`,
    () => `${tag()} ${cls()} ${tag()}`,
    () => `#i${pick(4)} ${tag()}`,
    () => `${cls()} + ${cls()}`,
    () => `${cls()} ~ ${tag()}`,
    () => `${cls()}:not(${cls()})`,
    () => `:is(${cls()}, ${flag()}) ${tag()}`,
    () => `[data-v="${pick(2)}"] ${cls()}`,
    () => `${cls()} ${flag()}`,
  ];
  return forms[pick(forms.length)]!();
}

/** Hidden as css-select finds it, asked about every selector on the element and its ancestors. */
function hiddenByCssSelect(el: Element, selectors: ((el: Element) => boolean)[]): boolean {
  for (let e: Element | null = el; e; e = e.parent?.type === 'tag' ? (e.parent as Element) : null)
    if (selectors.some((matches) => matches(e!))) return true;
  return false;
}

function elementsOf(p: ParsedPage): Element[] {
  return TAGS.flatMap((tag) => [...p.elements(tag)]);
}

describe('CSS cascade shortcuts agree with css-select', () => {
  it('hidden exactly where css-select finds a display:none rule, on pages that share their stylesheet', () => {
    let hidden = 0;
    let shown = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const pick = random(seed);
      const selectors = Array.from({ length: 6 + pick(10) }, () => selector(pick));
      const compiled = selectors.map((s) => compile<unknown, Element>(s));
      const style = `<style>${selectors.map((s) => `${s} { display: none }`).join('\n')}</style>`;
      // Three pages with the same <style>: the second and third reuse the rules the first built.
      for (let k = 0; k < 3; k++) {
        const p = page(`<!doctype html><html><head>${style}</head><body>${markup(pick, 3)}</body></html>`);
        const css = pageCss(p);
        for (const el of elementsOf(p)) {
          const expected = hiddenByCssSelect(el, compiled);
          assert.equal(
            css.isHidden(el),
            expected,
            `seed ${seed}, page ${k}: <${el.name} ${JSON.stringify(el.attribs)}>`,
          );
          if (expected) hidden++;
          else shown++;
        }
      }
    }
    // Both verdicts are well represented, so neither side of the comparison is vacuous.
    assert.ok(hidden > 200 && shown > 200, `${hidden} hidden, ${shown} shown`);
  });

  it('many descendant rules for one tag (the grouped ancestor filter) hide what css-select finds', () => {
    let hidden = 0;
    let shown = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const pick = random(seed);
      // 40 rules a plain img may meet, each under its own ancestor class; wrappers w40–w59 have none.
      const selectors = Array.from({ length: 40 }, (_, i) => (i % 4 ? `.w${i} img` : `.w${i} > div > img`));
      const compiled = selectors.map((s) => compile<unknown, Element>(s));
      const style = `<style>${selectors.map((s) => `${s} { display: none }`).join('\n')}</style>`;
      const wrap = (depth: number): string =>
        Array.from({ length: 3 }, () => {
          const inner = depth > 0 ? wrap(depth - 1) : '<img src="/i.png">';
          return `<div class="w${pick(60)} c${pick(3)}">${inner}</div>`;
        }).join('');
      const p = page(`<!doctype html><html><head>${style}</head><body>${wrap(2)}</body></html>`);
      const css = pageCss(p);
      for (const img of p.elements('img')) {
        const expected = hiddenByCssSelect(img as Element, compiled);
        assert.equal(css.isHidden(img as Element), expected, `seed ${seed}`);
        if (expected) hidden++;
        else shown++;
      }
    }
    assert.ok(hidden > 20 && shown > 20, `${hidden} hidden, ${shown} shown`);
  });

  it('a rule on <html> sees the class a script swaps; control: the page without a script keeps no-js', () => {
    const html = (script: string) =>
      page(
        `<!doctype html><html class="no-js"><head><style>html.no-js main { visibility: hidden }</style></head>` +
          `<body><main><p id="t">x</p></main>${script}</body></html>`,
      );
    const target = (p: ParsedPage) => findOne((e) => e.attribs.id === 't', p.doc!.children)!;
    const swapped = html('<script src="/app.js"></script>');
    const kept = html('');
    assert.equal(pageCss(swapped).isHidden(target(swapped)), false);
    assert.equal(pageCss(kept).isHidden(target(kept)), true);
  });
});
