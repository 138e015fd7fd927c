import assert from 'node:assert/strict';
import { ariaInvalid } from '../../src/analyzers/a11y-aria';
import { headingLevel, headingOrder } from '../../src/analyzers/a11y-headings';
import { parsePage } from '../../src/analyzers/parse';
import type { SnapshotPage } from '../../src/analyzers/snapshot';
import type { Analyzer, AnalyzerOutcome } from '../../src/analyzers/types';
import { runAnalyzerOn } from '../support/analyzer-run';

/**
 * The static ARIA and heading-order rules. Every case's verdict was checked against axe-core 4 in
 * Chromium on the same markup (the fixture site `aria` keeps the end-to-end version).
 */

const ORIGIN = 'https://example.com';
let n = 0;

function page(body: string, head = ''): SnapshotPage {
  const url = `${ORIGIN}/p${n++}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title>${head}</head><body>${body}</body></html>`,
    ttfbMs: 100,
    bytes: 1000,
    depth: 1,
    redirectChain: [],
  };
}

const run = (a: Analyzer, pages: SnapshotPage[]): AnalyzerOutcome => runAnalyzerOn(a, ORIGIN, pages);

function messages(a: Analyzer, body: string, head = ''): string[] {
  return run(a, [page(body, head)]).findings.map((f) => f.message);
}

describe('A11Y_ARIA_INVALID (static axe ARIA rules)', () => {
  it('aria-roles: no valid role among the tokens, or an abstract role', () => {
    assert.deepEqual(messages(ariaInvalid, '<div role="buton">x</div>'), ['Role "buton" is not a valid ARIA role.']);
    assert.match(messages(ariaInvalid, '<div role="widget">x</div>')[0]!, /Abstract ARIA role "widget"/);
    // A fallback list with one valid role, DPUB roles and an empty role are fine.
    assert.deepEqual(messages(ariaInvalid, '<div role="switch checkbox" aria-checked="true">x</div>'), []);
    assert.deepEqual(messages(ariaInvalid, '<div role="doc-subtitle">x</div><div role=" ">y</div>'), []);
  });

  it('aria-valid-attr: unknown aria-* attributes', () => {
    assert.deepEqual(messages(ariaInvalid, '<input aria-label="q" aria-labeledby="l">'), [
      'Unknown ARIA attribute aria-labeledby.',
    ]);
  });

  it('aria-valid-attr-value: values by type; id references to nothing on expanded controls only', () => {
    assert.deepEqual(messages(ariaInvalid, '<button aria-expanded="yes">x</button>'), [
      'aria-expanded="yes" is not an allowed value.',
    ]);
    assert.deepEqual(messages(ariaInvalid, '<span aria-valuenow="abc">v</span>'), [
      'aria-valuenow="abc" is not an allowed value.',
    ]);
    assert.deepEqual(messages(ariaInvalid, '<ul role="tree"><li role="treeitem" aria-level="0">x</li></ul>'), [
      'aria-level="0" is not an allowed value.',
    ]);
    assert.deepEqual(messages(ariaInvalid, '<div role="region" aria-activedescendant="nope">x</div>'), [
      'aria-activedescendant="nope" refers to no element of the page.',
    ]);
    assert.deepEqual(messages(ariaInvalid, '<button aria-expanded="true" aria-controls="gone">x</button>'), [
      'aria-controls="gone" refers to no element of the page.',
    ]);
    // Left for review by axe, not failed: collapsed or popup controls, describedby/labelledby/current,
    // case-insensitive booleans, an empty non-text value.
    for (const ok of [
      '<button aria-expanded="false" aria-controls="later">x</button>',
      '<button aria-haspopup="true" aria-controls="later">x</button>',
      '<span aria-describedby="missing">x</span><a href="#" aria-current="yes">y</a>',
      '<button aria-pressed="TRUE">p</button><button aria-disabled="True">d</button>',
      '<div role="checkbox" aria-checked="false" aria-invalid="">x</div>',
      '<button aria-controls="m" aria-expanded="true">x</button><ul id="m"></ul>',
    ])
      assert.deepEqual(messages(ariaInvalid, ok), [], ok);
  });

  it('aria-required-attr: missing required states unless the element has them natively', () => {
    assert.deepEqual(messages(ariaInvalid, '<div role="checkbox" tabindex="0">x</div>'), [
      'An element with role="checkbox" lacks the required attribute aria-checked.',
    ]);
    assert.deepEqual(messages(ariaInvalid, '<div role="checkbox" aria-checked="">x</div>'), [
      'An element with role="checkbox" lacks the required attribute aria-checked.',
    ]);
    assert.deepEqual(messages(ariaInvalid, '<select role="combobox" aria-label="c"><option>a</option></select>'), [
      'An element with role="combobox" lacks the required attributes aria-expanded, aria-controls.',
    ]);
    assert.deepEqual(messages(ariaInvalid, '<div role="separator" tabindex="0"></div>'), [
      'An element with role="separator" lacks the required attribute aria-valuenow.',
    ]);
    for (const ok of [
      '<input type="checkbox" role="switch">',
      '<input type="range" role="slider" aria-label="v">',
      '<div role="slider" aria-valuetext="Medium" tabindex="0">m</div>',
      '<div role="separator"></div>',
      '<div role="combobox" aria-expanded="false" aria-label="c"></div>',
      '<h2 role="heading">x</h2>',
    ])
      assert.deepEqual(messages(ariaInvalid, ok), [], ok);
  });

  it('aria-dialog-name: dialogs need aria-label, a labelledby target with text, or title', () => {
    assert.match(messages(ariaInvalid, '<div role="dialog"><p>x</p></div>')[0]!, /A dialog has no accessible name/);
    assert.match(
      messages(ariaInvalid, '<div role="alertdialog" aria-labelledby="t"><span id="t"></span></div>')[0]!,
      /alertdialog/,
    );
    assert.deepEqual(messages(ariaInvalid, '<div role="dialog" aria-labelledby="t"><h2 id="t">Hi</h2></div>'), []);
    assert.deepEqual(messages(ariaInvalid, '<div role="dialog" title="Hi">x</div>'), []);
  });

  it('does not judge hidden or inert elements (markup, inline style, page CSS, aria-hidden, template)', () => {
    const body =
      '<div hidden><span role="foo">a</span></div><div style="display:none"><div role="checkbox">b</div></div>' +
      '<div class="collapsed"><div role="dialog">c</div></div><div aria-hidden="true"><span aria-bogus="1">d</span></div>' +
      '<template><div role="buton">e</div></template>';
    const out = run(ariaInvalid, [page(body, '<style>.collapsed{display:none}</style>')]);
    assert.deepEqual(out, { status: 'pass', score: 1, findings: [] });
  });

  it('one finding per problem, naming every page with it; score = share of clean pages', () => {
    const shared = '<nav><div role="menu-bar">m</div></nav>';
    const out = run(ariaInvalid, [page(shared), page(shared), page('<p>fine</p>')]);
    assert.equal(out.status, 'fail');
    assert.equal(out.score, 1 / 3);
    assert.equal(out.findings.length, 1);
    assert.equal(out.findings[0]!.urls.length, 2);
    assert.equal(out.findings[0]!.evidence, '<div role="menu-bar">m</div>');
  });
});

describe('A11Y_HEADING_ORDER (as axe heading-order)', () => {
  it('flags a heading more than one level deeper than the one before it', () => {
    assert.deepEqual(messages(headingOrder, '<h1>a</h1><h3>b</h3><h2>c</h2><h5>d</h5>'), [
      'Heading level skipped: a level 3 heading follows a level 1 heading.',
      'Heading level skipped: a level 5 heading follows a level 2 heading.',
    ]);
    // The first heading may have any level; going back up is fine.
    assert.deepEqual(messages(headingOrder, '<h3>a</h3><h4>b</h4><h1>c</h1><h2>d</h2>'), []);
  });

  it('levels: aria-level overrides, role=heading without it is 2, a non-heading role is no heading', () => {
    const level = (html: string) => headingLevel(parsePage(page(html)).elements('body')[0]!.children[0] as never);
    assert.equal(level('<div role="heading" aria-level="4">x</div>'), 4);
    assert.equal(level('<div role="heading">x</div>'), 2);
    assert.equal(level('<h3 aria-level="5">x</h3>'), 5);
    assert.equal(level('<h3 aria-level="0">x</h3>'), 3);
    assert.equal(level('<h2 role="tab">x</h2>'), null);
    assert.equal(level('<h2 role="presentation">x</h2>'), null);
    assert.equal(level('<h2 role="bogus">x</h2>'), 2);
    assert.deepEqual(messages(headingOrder, '<h1>a</h1><div role="heading">b</div><h4>c</h4>'), [
      'Heading level skipped: a level 4 heading follows a level 2 heading.',
    ]);
  });

  it('skips hidden headings (markup, page CSS, aria-hidden) and inert template content', () => {
    const body =
      '<h1>a</h1><div class="x"><h3>css</h3></div><h4 aria-hidden="true">aria</h4><h5 hidden>h</h5>' +
      '<template><h6>t</h6></template><h2>b</h2>';
    assert.deepEqual(run(headingOrder, [page(body, '<style>.x{display:none}</style>')]).status, 'pass');
  });

  it('is not applicable to a page without headings', () => {
    assert.equal(run(headingOrder, [page('<p>no headings</p>')]).status, 'not_applicable');
  });
});
