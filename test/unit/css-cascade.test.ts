/**
 * The CSS cascade the analyzers judge hidden and CSS-sized elements by (src/analyzers/page-css.ts,
 * docs/analyzers.md "Accuracy rules"): @media at the 412 px mobile viewport, specificity, source
 * order, !important, inline style, layers, and the `no-js` class a page's own script swaps for `js`.
 * Every case has a control that must not be judged hidden.
 */
import assert from 'node:assert/strict';
import type { Element } from 'domhandler';
import { findOne } from 'domutils';
import { parse as parseSelectors } from 'css-what';
import { ariaInvalid } from '../../src/analyzers/a11y-aria';
import { formLabelMissing } from '../../src/analyzers/a11y-forms';
import { specificityOf } from '../../src/analyzers/css-selector';
import { pageCss } from '../../src/analyzers/page-css';
import { parsePage, parsePages, stylesheetTexts, type ParsedPage } from '../../src/analyzers/parse';
import type { CrawlSnapshot, SnapshotPage } from '../../src/analyzers/snapshot';
import type { Analyzer } from '../../src/analyzers/types';

const ORIGIN = 'https://example.com';
let n = 0;

function snapshotPage(body: string, { head = '', html = '<html lang="en">' } = {}): SnapshotPage {
  const url = `${ORIGIN}/p${n++}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<!DOCTYPE html>${html}<head><meta charset="utf-8"><title>t</title>${head}</head><body>${body}</body></html>`,
    ttfbMs: 100,
    bytes: 1000,
    depth: 1,
    redirectChain: [],
  };
}

/** Whether the element with id `t` is hidden on a page with this CSS and body. */
function hidden(css: string, body = '<div id="t" class="c">x</div>', options: { html?: string; head?: string } = {}) {
  const p = parsePage(snapshotPage(body, { ...options, head: `<style>${css}</style>${options.head ?? ''}` }));
  return pageCss(p).isHidden(target(p));
}

function target(p: ParsedPage): Element {
  const el = findOne((e) => e.attribs.id === 't', p.doc!.children);
  assert.ok(el, 'the page has an element with id="t"');
  return el;
}

const NO_JS = '<html lang="en" class="no-js">';
const SEARCH = '<div id="t" class="search-dialog" role="dialog"><input type="search" aria-label="Search"></div>';

describe('CSS cascade', () => {
  it('@media at the 412 px mobile viewport: a rule for ≥ 768px does not apply, one for ≤ 600px does', () => {
    assert.equal(hidden('@media (max-width: 600px) { .c { display: none } }'), true);
    assert.equal(hidden('@media (min-width: 768px) { .c { display: none } }'), false);
    // em is 16px: 37.5em = 600px, 48em = 768px; range syntax too.
    assert.equal(hidden('@media (max-width: 37.5em) { .c { display: none } }'), true);
    assert.equal(hidden('@media screen and (min-width: 48em) { .c { display: none } }'), false);
    assert.equal(hidden('@media (400px <= width <= 700px) { .c { display: none } }'), true);
    assert.equal(hidden('@media (width > 412px) { .c { display: none } }'), false);
  });

  it('@media types, orientation, colour scheme, not, only and comma lists; unknown features do not apply', () => {
    for (const query of [
      'only screen and (orientation: portrait)',
      '(prefers-color-scheme: light)',
      'not print',
      'print, (max-width: 500px)',
      'screen and (min-width: 0) and (max-height: 900px)',
      'not all and (min-width: 1024px)',
      '(max-aspect-ratio: 1/1)',
      '(min-width: 0)',
    ])
      assert.equal(hidden(`@media ${query} { .c { display: none } }`), true, query);
    for (const query of [
      'print',
      '(orientation: landscape)',
      '(prefers-color-scheme: dark)',
      'not screen',
      'screen and (min-width: 1024px), print',
      '(min-monochrome: 1)',
      '(max-width: calc(100vw + 1px))',
      'not (unknown-feature: 1)',
      '(max-width: 600)',
    ])
      assert.equal(hidden(`@media ${query} { .c { display: none } }`), false, query);
  });

  it('the media attribute of <style> and <link> is the same evaluator', () => {
    const body = '<div id="t" class="c">x</div>';
    const el = (media: string) => {
      const p = parsePage(snapshotPage(body, { head: `<style media="${media}">.c{display:none}</style>` }));
      return pageCss(p).isHidden(target(p));
    };
    assert.equal(el('all'), true);
    assert.equal(el('screen and (max-width: 600px)'), true);
    assert.equal(el('(min-width: 768px)'), false);
    assert.equal(el('print'), false);
    const texts = stylesheetTexts({ stylesheets: [{ url: `${ORIGIN}/site.css`, text: '.c { display: none }' }] });
    const linked = (media: string) => {
      const head = `<link rel="stylesheet" href="/site.css" media="${media}">`;
      const p = parsePage(snapshotPage(body, { head }), texts);
      return pageCss(p).isHidden(target(p));
    };
    assert.equal(linked('screen and (max-width: 600px)'), true);
    assert.equal(linked('(min-width: 768px)'), false);
  });

  it('specificity: id beats class beats type, whatever their order', () => {
    assert.equal(hidden('#t { display: none } .c { display: block } div { display: block }'), true);
    assert.equal(hidden('#t { display: block } .c { display: none } div { display: none }'), false);
    assert.equal(hidden('.c { display: none } div { display: block }'), true);
    assert.equal(hidden('div { display: none } .c { display: block }'), false);
    // :is() counts as its most specific argument, :where() as nothing.
    assert.equal(hidden(':is(#t, .x) { display: none } .c.c { display: block }'), true);
    assert.equal(hidden(':where(#t) { display: none } div { display: block }'), false);
  });

  it('specificity is computed as Selectors 4 says', () => {
    const of = (selector: string) => specificityOf(parseSelectors(selector)[0]!);
    assert.deepEqual(of('#a .b > p'), [1, 1, 1]);
    assert.deepEqual(of('a[href]:hover'), [0, 2, 1]);
    assert.deepEqual(of(':is(#a, .b) span'), [1, 0, 1]);
    assert.deepEqual(of('a:not(.p, #o)'), [1, 0, 1]);
    assert.deepEqual(of(':where(#q) .z'), [0, 1, 0]);
    assert.deepEqual(of('li:nth-child(2n of .k)'), [0, 2, 1]);
    assert.deepEqual(of('[id=a]'), [0, 1, 0]);
    assert.deepEqual(of('*'), [0, 0, 0]);
  });

  it('descendant rules see every class of every ancestor, however the class list is spaced', () => {
    const body = '<section class="x\n a\tq  "><div><p id="t" class="b">x</p></div></section>';
    assert.equal(hidden('.a .b { display: none }', body), true);
    assert.equal(hidden('.q > div > .b, #z .b { visibility: hidden }', body), true);
    assert.equal(hidden('.c .b { display: none } section.x div > p { display: none }', body), true);
    assert.equal(hidden('.c .b { display: none } .a > .b { display: none }', body), false);
  });

  it('source order decides between equal specificities, across <style> elements too', () => {
    const both = '<div id="t" class="a b">x</div>';
    assert.equal(hidden('.a { display: block } .b { display: none }', both), true);
    assert.equal(hidden('.b { display: none } .a { display: block }', both), false);
    assert.equal(hidden('.a { display: none }', both, { head: '<style>.b { display: block }</style>' }), false);
    assert.equal(hidden('.a { display: block }', both, { head: '<style>.b { display: none }</style>' }), true);
  });

  it('!important beats a more specific normal declaration; a later important one still wins in order', () => {
    assert.equal(hidden('.c { display: none !important } #t { display: block }'), true);
    assert.equal(hidden('.c { display: none } #t { display: block }'), false);
    assert.equal(hidden('#t { display: none !important } .c { display: block !important }'), true);
  });

  it('inline style beats the stylesheet; an important sheet rule beats it; inline important wins', () => {
    assert.equal(hidden('#t { display: none }', '<div id="t" style="display: block">x</div>'), false);
    assert.equal(hidden('#t { display: block }', '<div id="t" style="display:none">x</div>'), true);
    assert.equal(hidden('#t { display: none !important }', '<div id="t" style="display: block">x</div>'), true);
    assert.equal(
      hidden('#t { display: none !important }', '<div id="t" style="display: block !important">x</div>'),
      false,
    );
  });

  it('cascade layers: unlayered styles beat layered ones, important ones the other way round', () => {
    assert.equal(hidden('@layer base { #t { display: none } } .c { display: block }'), false);
    assert.equal(hidden('@layer a, b; @layer b { .c { display: none } } @layer a { #t { display: block } }'), true);
    assert.equal(hidden('@layer base { .c { display: none !important } } #t { display: block !important }'), true);
  });

  it('visibility is inherited and can be overridden; display:none of an ancestor cannot', () => {
    const nested = (style: string) => `<div class="outer"><p id="t" style="${style}">x</p></div>`;
    assert.equal(hidden('.outer { visibility: hidden }', nested('')), true);
    assert.equal(hidden('.outer { visibility: hidden }', nested('visibility: visible')), false);
    assert.equal(hidden('.outer { display: none }', nested('display: block')), true);
    assert.equal(hidden('.outer { display: flex }', nested('')), false);
  });

  it('the user agent hides [hidden] (unless the author shows it), <noscript> and closed dialogs', () => {
    assert.equal(hidden('', '<div id="t" hidden>x</div>'), true);
    assert.equal(hidden('.c { display: block }', '<div id="t" class="c" hidden>x</div>'), false);
    assert.equal(hidden('', '<noscript><img id="t" src="/x.png"></noscript>'), true);
    assert.equal(hidden('', '<dialog><p id="t">x</p></dialog>'), true);
    assert.equal(hidden('', '<dialog open><p id="t">x</p></dialog>'), false);
    assert.equal(hidden('', '<details><summary>More</summary><p id="t">x</p></details>'), true);
    assert.equal(hidden('', '<details><summary id="t">More</summary><p>x</p></details>'), false);
    assert.equal(hidden('', '<details open><summary>More</summary><p id="t">x</p></details>'), false);
    // Styles inside <noscript> or <template> do not apply with scripting on.
    assert.equal(
      hidden('', '<noscript><style>.c{display:none}</style></noscript><div id="t" class="c">x</div>'),
      false,
    );
    assert.equal(
      hidden('', '<template><style>.c{display:none}</style></template><div id="t" class="c">x</div>'),
      false,
    );
  });

  it('selectors css-select cannot evaluate, dynamic states and pseudo-elements never hide anything', () => {
    assert.equal(hidden('.c:hover { display: none }'), false);
    assert.equal(hidden('.c::before { display: none }'), false);
    assert.equal(hidden('.c:unknown-pseudo { display: none }'), false);
    assert.equal(
      hidden('.menu:not(:focus-within) .c { display: none }', '<nav class="menu"><a id="t" class="c">x</a></nav>'),
      true,
    );
    assert.equal(
      hidden('.x ~ .c, div:has(> span) { display: none }', '<i class="x"></i><div id="t"><span></span></div>'),
      true,
    );
  });

  it('no-js: hidden only under .no-js → visible on a page that runs any script, inline or external', () => {
    const css = '.no-js .search-dialog { display: none }';
    for (const script of [
      "<script>document.documentElement.className = document.documentElement.className.replace('no-js', 'js');</script>",
      '<script>document.documentElement.classList.remove("no-js")</script>',
      // The swap is the convention, wherever the code is: Material for MkDocs does it in its bundle.
      '<script src="/assets/javascripts/bundle.js"></script>',
      '<script type="module" src="/app.js"></script>',
      '<script type="text/javascript; charset=utf-8" defer src="/app.js"></script>',
      "<script>console.log('analytics')</script>",
    ])
      assert.equal(hidden(css, `${SEARCH}${script}`, { html: NO_JS }), false, script);
    // <html> is judged as having js instead: rules for .js apply, and only then.
    const js = '.js .c { display: none }';
    const swap = '<script src="/swap.js"></script>';
    assert.equal(hidden(js, `<div id="t" class="c">x</div>${swap}`, { html: NO_JS }), true);
    assert.equal(hidden(js, '<div id="t" class="c">x</div>', { html: NO_JS }), false);
  });

  it('control: a page that runs no script keeps no-js, and the dialog stays hidden', () => {
    const css = '.no-js .search-dialog { display: none }';
    for (const script of [
      '',
      `<script type="application/json">{"x":"classList.remove('no-js')"}</script>`,
      '<script type="application/ld+json">{"@type":"WebSite"}</script>',
      '<script type="text/x-template"><div>{{ x }}</div></script>',
      '<script nomodule src="/legacy.js"></script>',
      '<script></script><script src=""></script>',
      '<template><script src="/later.js"></script></template>',
      '<noscript><script src="/never.js"></script></noscript>',
    ])
      assert.equal(hidden(css, `${SEARCH}${script}`, { html: NO_JS }), true, script);
  });

  it('sized by CSS: the cascade winner counts, @media included; auto does not', () => {
    const sized = (css: string, img = '<img id="t" class="logo" src="/l.png">') => {
      const p = parsePage(snapshotPage(img, { head: `<style>${css}</style>` }));
      return pageCss(p).isSizedByCss(target(p));
    };
    assert.equal(sized('.logo { width: 120px; height: 40px }'), true);
    assert.equal(sized('.logo { width: 120px; height: 40px } #t { height: auto }'), false);
    assert.equal(sized('@media (max-width: 600px) { .logo { width: 120px; height: 40px } }'), true);
    assert.equal(sized('@media (min-width: 768px) { .logo { width: 120px; height: 40px } }'), false);
    assert.equal(sized('img { aspect-ratio: 3 / 1 }'), true);
    assert.equal(sized('', '<img id="t" src="/l.png" style="width: 10px; height: 10px">'), true);
  });

  it('a linked stylesheet is parsed once per analysis and applies on every page that links it', () => {
    const snapshot = {
      stylesheets: [{ url: `${ORIGIN}/site.css`, text: '@media (max-width: 600px) { .c { display: none } }' }],
    };
    const texts = stylesheetTexts(snapshot);
    const link = '<link rel="stylesheet" href="/site.css">';
    const pages = [0, 1].map(() => parsePage(snapshotPage('<div id="t" class="c">x</div>', { head: link }), texts));
    for (const p of pages) assert.equal(pageCss(p).isHidden(target(p)), true);
    const unlinked = parsePage(snapshotPage('<div id="t" class="c">x</div>'), texts);
    assert.equal(pageCss(unlinked).isHidden(target(unlinked)), false);
  });
});

describe('analyzers judge elements by the cascade', () => {
  const status = (a: Analyzer, page: SnapshotPage) => {
    const s: CrawlSnapshot = {
      origin: ORIGIN,
      robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
      pages: [page],
    };
    return a.run(s, parsePages(s.pages));
  };
  const STYLE = '<style>.no-js .search-dialog { display: none }</style>';
  const DIALOG = '<div class="search-dialog" role="dialog"><input type="search" aria-label="Search"></div>';
  const SWAP = '<script src="/assets/javascripts/bundle.js"></script>';

  it("A11Y_ARIA_INVALID reports the unnamed search dialog a page script's no-js swap makes visible", () => {
    const out = status(ariaInvalid, snapshotPage(`${DIALOG}${SWAP}`, { html: NO_JS, head: STYLE }));
    assert.equal(out.status, 'fail');
    assert.deepEqual(
      out.findings.map((f) => f.message),
      ['A dialog has no accessible name (no aria-label, aria-labelledby or title).'],
    );
  });

  it('control: without the script the dialog is hidden (as before), and a named dialog passes', () => {
    assert.equal(status(ariaInvalid, snapshotPage(DIALOG, { html: NO_JS, head: STYLE })).status, 'pass');
    const named = DIALOG.replace('role="dialog"', 'role="dialog" aria-label="Search the site"');
    assert.equal(status(ariaInvalid, snapshotPage(`${named}${SWAP}`, { html: NO_JS, head: STYLE })).status, 'pass');
  });

  it('A11Y_FORM_LABEL_MISSING: a field shown only on wide screens is not judged on the mobile viewport', () => {
    const field = '<input type="text" class="wide-only">';
    const css = (rule: string) => `<style>.wide-only { display: none } ${rule}</style>`;
    assert.equal(status(formLabelMissing, snapshotPage(field, { head: css('') })).status, 'not_applicable');
    assert.equal(
      status(
        formLabelMissing,
        snapshotPage(field, { head: css('@media (min-width: 1024px) { .wide-only { display: block } }') }),
      ).status,
      'not_applicable',
    );
    assert.equal(
      status(
        formLabelMissing,
        snapshotPage(field, { head: css('@media (max-width: 600px) { .wide-only { display: block } }') }),
      ).status,
      'fail',
    );
  });
});
