import assert from 'node:assert/strict';
import { parsePages } from '../../src/analyzers/parse';
import { anchorNotCrawlable } from '../../src/analyzers/seo-anchors';
import type { CrawlSnapshot } from '../../src/analyzers/snapshot';
import type { AnalyzerOutcome } from '../../src/analyzers/types';

/**
 * Issue 23 item 5: SEO_ANCHOR_NOT_CRAWLABLE decides as Lighthouse's crawlable-anchors audit does,
 * one fixture per branch of its decision, each with a control that must pass.
 */

const ORIGIN = 'https://example.com';

function run(body: string): AnalyzerOutcome {
  const url = `${ORIGIN}/page`;
  const s: CrawlSnapshot = {
    origin: ORIGIN,
    robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
    pages: [
      {
        url,
        finalUrl: url,
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!DOCTYPE html><html lang="en"><head><title>Anchors</title></head><body>${body}</body></html>`,
        ttfbMs: 100,
        bytes: 1000,
        depth: 1,
        redirectChain: [],
      },
    ],
  };
  return anchorNotCrawlable.run(s, parsePages(s.pages));
}

const fails = (html: string, message: RegExp, evidence = html): void => {
  const out = run(html);
  assert.equal(out.status, 'fail', html);
  assert.equal(out.findings.length, 1, html);
  assert.match(out.findings[0]!.message, message, html);
  assert.equal(out.findings[0]!.evidence, evidence);
};
const passes = (html: string): void => assert.equal(run(html).status, 'pass', html);

describe('accuracy: crawlable anchors as Lighthouse decides', () => {
  it('href="" passes: it resolves to the page itself (it failed before)', () => {
    passes('<a href="">Home</a>');
    passes('<a href="  ">Home</a>');
    // control: a real link passes too, and the page has something to judge
    passes('<a href="/about">About</a>');
  });

  it('javascript: hrefs fail only in the void(0) spellings; javascript:; toggles pass', () => {
    for (const html of [
      '<a href="javascript:void(0)">Menu</a>',
      '<a href="javascript:void(0);">Menu</a>',
      '<a href="javascript: void 0">Menu</a>',
      '<a href="javascript:void0">Menu</a>',
    ])
      fails(html, /uses a javascript: URL/);
    // controls: Lighthouse's pattern is only void(0), matched as written
    for (const html of [
      '<a href="javascript:;">Menu</a>',
      '<a href="javascript:">Menu</a>',
      '<a href="javascript:toggle()">Menu</a>',
      '<a href="javascript:;" onclick="toggle()">Menu</a>',
      '<a href="#">Top</a>',
      // Lighthouse matches its pattern case-sensitively on the raw attribute
      '<a href="JavaScript:void(0)">Menu</a>',
      '<a href="#" onclick="window.location=\'/x\'">X</a>',
    ])
      passes(html);
  });

  it('any role passes, even with javascript:void(0); an empty role does not', () => {
    passes('<a role="button" href="javascript:void(0)">Toggle</a>');
    passes('<a role="link" href="javascript:void(0)">Toggle</a>');
    passes('<a role="presentation" onclick="go()">Go</a>');
    fails('<a role=" " href="javascript:void(0)">Toggle</a>', /javascript:/);
  });

  it('mailto: passes even in a failing pattern; file: fails even with a name', () => {
    passes('<a href="mailto:javascript:void(0)">Mail</a>');
    passes('<a href="mailto:hi@example.com">Mail</a>');
    fails('<a href="file:///C:/site/index.html">Index</a>', /file: URL/);
    fails('<a name="x" href="file:///tmp/a">A</a>', /file: URL/);
  });

  it('an id without href is a jump target and passes, even with a handler; with an href the href decides', () => {
    passes('<a id="top" onclick="go()"></a>');
    passes('<a id="top" href="">Top</a>');
    fails('<a id="menu" href="javascript:void(0)">Menu</a>', /javascript:/);
  });

  it('a name passes (the old named target), unless the href is a file: URL', () => {
    passes('<a name="top"></a>');
    passes('<a name="menu" href="javascript:void(0)">Menu</a>');
    fails('<a name=" " href="javascript:void(0)">Menu</a>', /javascript:/);
  });

  it('no href and no link-only attribute: a placeholder, failing only with an event handler', () => {
    passes('<a class="placeholder">Menu</a>');
    fails('<a onclick="openMenu()">Menu</a>', /has no href and works by script/);
    fails('<a onmousedown="go()">Menu</a>', /has no href and works by script/);
  });

  it('a link-only attribute (target, rel, download…) without href fails; with an href it passes', () => {
    for (const attr of [
      'target="_blank"',
      'rel="nofollow"',
      'download',
      'ping="/p"',
      'hreflang="de"',
      'type="text/html"',
      'referrerpolicy="no-referrer"',
    ])
      fails(`<a ${attr}>Shop</a>`, /link attributes but no href/);
    passes('<a href="/shop" target="_blank" rel="noopener">Shop</a>');
  });

  it('an href the URL parser rejects fails; an odd but valid one passes', () => {
    fails('<a href="http://">Broken</a>', /not a valid URL/);
    fails('<a href="https://[oops">Broken</a>', /not a valid URL/);
    passes('<a href="https://exa mple.com/">Spaces are removed first</a>');
    passes('<a href="tel:+15551234">Call</a>');
    passes('<a href="?page=2">Next</a>');
  });

  it('SVG anchors are judged too (no name attribute there); inert template content is not', () => {
    const svgLink = '<a href="javascript:void(0)"><text>Go</text></a>';
    fails(`<svg>${svgLink}</svg>`, /javascript:/, svgLink);
    const named = '<a name="go" href="javascript:void(0)"><text>Go</text></a>';
    fails(`<svg>${named}</svg>`, /javascript:/, named);
    passes('<svg><foreignObject><a name="go" href="javascript:void(0)">Go</a></foreignObject></svg>');
    passes('<svg><a xlink:href="/x"><text>Go</text></a></svg>');
    passes('<svg><a target="_blank" xlink:href="/x"><text>Go</text></a></svg>');
    passes('<template><a onclick="go()">Later</a></template>');
  });

  it('each failing anchor is its own finding; a page of passing anchors passes', () => {
    const out = run(
      '<a href="javascript:void(0)">A</a><a href="">B</a><a onclick="f()">C</a><a href="javascript:;">D</a>',
    );
    assert.deepEqual(
      out.findings.map((f) => f.evidence),
      ['<a href="javascript:void(0)">A</a>', '<a onclick="f()">C</a>'],
    );
    assert.equal(run('<p>no anchors</p>').status, 'not_applicable');
  });
});
