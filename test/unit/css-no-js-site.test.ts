/**
 * The `no-js` convention on a crawled site (test/fixtures/sites/no-js, laid out as Material for
 * MkDocs): `<html class="no-js">`, `.no-js .md-search{display:none}` in the linked stylesheet and the
 * swap in an external bundle. A browser with JavaScript shows the unnamed search dialog, so
 * A11Y_ARIA_INVALID judges it as axe's aria-dialog-name does (docs/analyzers.md "Accuracy rules");
 * the page that runs no script keeps `no-js` and the dialog hidden.
 */
import assert from 'node:assert/strict';
import { findOne } from 'domutils';
import { ariaInvalid } from '../../src/analyzers/a11y-aria';
import { pageCss } from '../../src/analyzers/page-css';
import { parsePages, stylesheetTexts } from '../../src/analyzers/parse';
import type { CrawlSnapshot } from '../../src/analyzers/snapshot';
import { crawlFixtureSite } from '../support/fixture-crawl';
import { useLoopbackGuard } from '../support/loopback-guard';

describe('no-js swapped by an external script (fixture site no-js)', function () {
  this.timeout(60_000);
  useLoopbackGuard();

  let snapshot: CrawlSnapshot;
  let origin = '';
  before(async () => {
    snapshot = await crawlFixtureSite('no-js', 10);
    origin = snapshot.origin;
  });

  /** The crawled pages parsed as the analysis parses them, with the stylesheets they link. */
  const parsed = () => parsePages(snapshot.pages, stylesheetTexts(snapshot));

  /** Whether the search dialog of the page at `path` is hidden, by the crawled page and stylesheet. */
  const dialogHidden = (path: string) => {
    const p = parsed().find((page) => new URL(page.url).pathname === path);
    assert.ok(p, `${path} was crawled`);
    const dialog = findOne((el) => el.attribs.role === 'dialog', p.doc!.children);
    assert.ok(dialog, `${path} has the search dialog`);
    return pageCss(p).isHidden(dialog);
  };

  it('the crawl read both pages and the stylesheet that hides the dialog under .no-js', () => {
    const paths = snapshot.pages.map((p) => new URL(p.url).pathname).sort();
    assert.deepEqual(paths, ['/', '/no-script.html']);
    assert.ok(snapshot.stylesheets?.some((s) => s.text.includes('.no-js .md-search{display:none}')));
  });

  it('the page whose bundle runs shows the dialog, and A11Y_ARIA_INVALID flags its missing name there', () => {
    assert.equal(dialogHidden('/'), false);
    const out = ariaInvalid.run(snapshot, parsed());
    assert.equal(out.status, 'fail');
    const dialogFindings = out.findings.filter((f) => /dialog has no accessible name/.test(f.message));
    assert.equal(dialogFindings.length, 1);
    assert.deepEqual(dialogFindings[0]!.urls, [`${origin}/`]);
  });

  it('control: the page that runs no script (only its JSON config) keeps no-js, and its dialog is not judged', () => {
    assert.equal(dialogHidden('/no-script.html'), true);
    const out = ariaInvalid.run(snapshot, parsed());
    assert.ok(out.findings.every((f) => !f.urls.includes(`${origin}/no-script.html`)));
  });
});
