/**
 * The pure part of `npm run compare:lighthouse` (bench/compare-lighthouse.ts): how each side's verdict
 * on a page is read, the confusion arithmetic with Lighthouse as the reference, and the ranking.
 */
import assert from 'node:assert/strict';
import { ANALYZER_CODES } from '../../src/analyzers/catalog';
import {
  addPair,
  disagreements,
  emptyTally,
  precision,
  rankBy,
  recall,
  sameRanking,
  sumTallies,
  tallyByCheck,
  type Pair,
} from '../../bench/compare/agreement';
import { differenceFor } from '../../bench/compare/differences';
import { CHECKS, lighthouseVerdict, ourVerdict, type Check, type OurFinding } from '../../bench/compare/checks';

const check = (id: string): Check => CHECKS.find((c) => c.id === id)!;
const page = { url: 'http://127.0.0.1:1/a', finalUrl: 'http://127.0.0.1:1/a', status: 200 };
const finding = (analyzer: string, message: string, urls = [page.url], severity = 'high'): OurFinding => ({
  analyzer,
  severity,
  message,
  evidence: '<x>',
  urls,
});

describe('compare:lighthouse mapping and agreement', () => {
  it('maps every check to analyzers of our catalog and to distinct rows', async () => {
    for (const c of CHECKS) for (const code of c.ours) assert.ok(ANALYZER_CODES.includes(code as never), code);
    assert.equal(new Set(CHECKS.map((c) => c.id)).size, CHECKS.length);
  });

  it('names only audits that Lighthouse 13 runs', async () => {
    const config = (await import('lighthouse/core/config/default-config.js')) as unknown as {
      default: { categories: Record<string, { auditRefs: { id: string }[] }> };
    };
    const ids = new Set(Object.values(config.default.categories).flatMap((c) => c.auditRefs.map((r) => r.id)));
    for (const c of CHECKS) for (const id of c.lighthouse) assert.ok(ids.has(id), id);
  });

  it("reads Lighthouse's verdict: below 0.9 fails, any failing audit of a check fails it, n/a and errors are no verdict", () => {
    const alt = check('image-alt+input-image-alt');
    assert.equal(lighthouseVerdict(alt, { 'image-alt': { score: 1, scoreDisplayMode: 'binary' } }), 'pass');
    assert.equal(
      lighthouseVerdict(alt, {
        'image-alt': { score: 1, scoreDisplayMode: 'binary' },
        'input-image-alt': { score: 0, scoreDisplayMode: 'binary' },
      }),
      'fail',
    );
    assert.equal(lighthouseVerdict(alt, { 'image-alt': { score: null, scoreDisplayMode: 'notApplicable' } }), 'na');
    assert.equal(
      lighthouseVerdict(alt, { 'image-alt': { score: 0, scoreDisplayMode: 'binary', errorMessage: 'boom' } }),
      'na',
    );
    // duplicate-id-aria is informative in Lighthouse 13: the elements it lists are its failures.
    const dup = check('duplicate-id-aria');
    assert.equal(
      lighthouseVerdict(dup, { 'duplicate-id-aria': { score: 1, scoreDisplayMode: 'informative', items: 2 } }),
      'fail',
    );
    assert.equal(
      lighthouseVerdict(dup, { 'duplicate-id-aria': { score: 1, scoreDisplayMode: 'informative', items: 0 } }),
      'pass',
    );
    // Other checks give an informative audit no verdict.
    assert.equal(
      lighthouseVerdict(alt, { 'image-alt': { score: 0, scoreDisplayMode: 'informative', items: 3 } }),
      'na',
    );
    const unsized = check('unsized-images');
    assert.equal(
      lighthouseVerdict(unsized, { 'unsized-images': { score: 0.5, scoreDisplayMode: 'metricSavings' } }),
      'fail',
    );
    assert.equal(
      lighthouseVerdict(unsized, { 'unsized-images': { score: 0.9, scoreDisplayMode: 'metricSavings' } }),
      'pass',
    );
  });

  it('reads our verdict from the findings that name the page, per check', () => {
    const statuses = {
      A11Y_CONTROL_NAME_MISSING: 'fail',
      SEO_META_DESC_MISSING: 'fail',
      A11Y_FORM_LABEL_MISSING: 'warn',
    };
    const linkless = [finding('A11Y_CONTROL_NAME_MISSING', 'A button has no accessible name (no text, …).')];
    // One analyzer, two Lighthouse audits: a nameless button fails button-name, not link-name.
    assert.equal(ourVerdict(check('button-name'), page, linkless, statuses), 'fail');
    assert.equal(ourVerdict(check('link-name'), page, linkless, statuses), 'pass');
    // A finding about other pages does not fail this one.
    const elsewhere = [
      finding('A11Y_CONTROL_NAME_MISSING', 'A link has no accessible name.', ['http://127.0.0.1:1/b']),
    ];
    assert.equal(ourVerdict(check('link-name'), page, elsewhere, statuses), 'pass');
    // A description shared by pages is ours alone; a missing one is both sides'.
    const shared = [finding('SEO_META_DESC_MISSING', 'The same meta description is used on 2 pages.')];
    assert.equal(ourVerdict(check('meta-description'), page, shared, statuses), 'pass');
    const missing = [finding('SEO_META_DESC_MISSING', 'The page has no meta description.')];
    assert.equal(ourVerdict(check('meta-description'), page, missing, statuses), 'fail');
    // An info-level note (a field named by its placeholder only) is not a failure.
    const note = [
      finding(
        'A11Y_FORM_LABEL_MISSING',
        'A form field (<input>) is named only by its placeholder.',
        [page.url],
        'info',
      ),
    ];
    assert.equal(ourVerdict(check('label+select-name'), page, note, statuses), 'pass');
    // A page served under two URLs without a canonical link is ours alone (crawl knowledge).
    const alias = [
      finding('SEO_CANONICAL_INVALID', 'The page is also linked under a second URL (its /index.html form).'),
    ];
    assert.equal(ourVerdict(check('canonical'), page, alias, { SEO_CANONICAL_INVALID: 'warn' }), 'pass');
    // So is a canonical URL that redirects or fails when requested (Lighthouse never requests it); the
    // link's form (conflicting, relative) is what both judge.
    const canonicalStatuses = { SEO_CANONICAL_INVALID: 'fail' };
    for (const message of [
      'The canonical URL redirects (HTTP 301) instead of answering 200.',
      'The canonical URL answers HTTP 404 instead of 200.',
    ])
      assert.equal(
        ourVerdict(check('canonical'), page, [finding('SEO_CANONICAL_INVALID', message)], canonicalStatuses),
        'pass',
      );
    const conflicting = [finding('SEO_CANONICAL_INVALID', 'The page declares 2 conflicting canonical URLs.')];
    assert.equal(ourVerdict(check('canonical'), page, conflicting, canonicalStatuses), 'fail');
    // An alternate that does not link back takes a crawl of both pages; Lighthouse judges codes and hrefs.
    const hreflangStatuses = { SEO_HREFLANG_INVALID: 'fail' };
    const noReturn = 'An alternate language version does not link back to this page (no return hreflang link).';
    const oneWay = [finding('SEO_HREFLANG_INVALID', noReturn)];
    assert.equal(ourVerdict(check('hreflang'), page, oneWay, hreflangStatuses), 'pass');
    const badCode = [finding('SEO_HREFLANG_INVALID', '"english" is not a valid hreflang language code.')];
    assert.equal(ourVerdict(check('hreflang'), page, badCode, hreflangStatuses), 'fail');
    // The browser stage judges only the pages it measured.
    const contrast = [finding('A11Y_COLOR_CONTRAST', 'Text below WCAG AA contrast.')];
    const rendered = { A11Y_COLOR_CONTRAST: 'fail' };
    assert.equal(ourVerdict(check('color-contrast'), { ...page, rendered: true }, contrast, rendered), 'fail');
    assert.equal(ourVerdict(check('color-contrast'), { ...page, rendered: false }, contrast, rendered), 'na');
    assert.equal(ourVerdict(check('color-contrast'), { ...page, rendered: true }, [], rendered), 'pass');
    // An analyzer that did not run gives no verdict.
    assert.equal(ourVerdict(check('color-contrast'), page, [], statuses), 'na');
  });

  it('fails only the broken URL of a broken-link finding on http-status-code, not the pages linking to it', () => {
    const status = check('http-status-code');
    const broken = [
      finding('SEO_BROKEN_LINK', 'An internal link target answers HTTP 404.', ['http://127.0.0.1:1/gone', page.url]),
    ];
    const statuses = { SEO_BROKEN_LINK: 'fail', SEO_HTTP_STATUS_ERROR: 'pass' };
    assert.equal(ourVerdict(status, page, broken, statuses), 'pass');
    const gone = { url: 'http://127.0.0.1:1/gone', finalUrl: 'http://127.0.0.1:1/gone', status: 404 };
    assert.equal(ourVerdict(status, gone, broken, statuses), 'fail');
    // The content of an error page is not judged by our page checks: no verdict to compare.
    assert.equal(ourVerdict(check('meta-description'), gone, [], { SEO_META_DESC_MISSING: 'pass' }), 'na');
  });

  it('judges site-scope checks (robots.txt) by any finding of the site', () => {
    const robots = check('robots-txt');
    const f = [finding('SEO_ROBOTS_TXT_INVALID', 'Line 3 is not valid.', ['http://127.0.0.1:1/robots.txt'])];
    assert.equal(ourVerdict(robots, page, f, { SEO_ROBOTS_TXT_INVALID: 'fail' }), 'fail');
    assert.equal(ourVerdict(robots, page, [], { SEO_ROBOTS_TXT_INVALID: 'pass' }), 'pass');
    assert.equal(ourVerdict(robots, page, [], { SEO_ROBOTS_TXT_INVALID: 'not_applicable' }), 'na');
  });

  it('explains a disagreement by a documented difference only where its conditions hold', () => {
    const english = { body: '<!doctype html><html lang="en"><title>x</title>' };
    assert.match(differenceFor('link-text', 'fail', 'pass', english)?.reason ?? '', /every language/);
    // Agreement needs no explanation; the reverse disagreement is not that difference.
    assert.equal(differenceFor('link-text', 'fail', 'fail', english), undefined);
    assert.equal(differenceFor('link-text', 'pass', 'fail', english), undefined);
    // Without a declared language Lighthouse matches every list too: a disagreement there is a defect.
    assert.equal(differenceFor('link-text', 'fail', 'pass', { body: '<html><title>x</title>' }), undefined);
    assert.equal(differenceFor('image-alt+input-image-alt', 'fail', 'pass', english), undefined);
    // A console error Lighthouse saw that is only Chromium's favicon request, and one that is not.
    const favicon = (urls: string[]) => ({
      'errors-in-console': { score: 0, scoreDisplayMode: 'binary', items: urls.length, itemUrls: urls },
    });
    assert.match(
      differenceFor('errors-in-console', 'pass', 'fail', english, favicon(['http://127.0.0.1:1/favicon.ico']))
        ?.reason ?? '',
      /favicon/,
    );
    const appError = favicon(['http://127.0.0.1:1/favicon.ico', 'http://127.0.0.1:1/js/app.js']);
    assert.equal(differenceFor('errors-in-console', 'pass', 'fail', english, appError), undefined);
  });

  it('counts TP/FP/FN/TN with Lighthouse as the reference', () => {
    let t = emptyTally();
    t = addPair(t, 'fail', 'fail'); // TP
    t = addPair(t, 'fail', 'pass'); // FP
    t = addPair(t, 'fail', 'na'); // FP: we report something Lighthouse found nothing to judge
    t = addPair(t, 'pass', 'fail'); // FN
    t = addPair(t, 'pass', 'pass'); // TN
    t = addPair(t, 'pass', 'na'); // skipped
    t = addPair(t, 'na', 'fail'); // skipped: ours not run
    assert.deepEqual(t, { tp: 1, fp: 2, fn: 1, tn: 1, skipped: 2 });
    assert.equal(precision(t), 1 / 3);
    assert.equal(recall(t), 1 / 2);
    assert.equal(precision(emptyTally()), null);
    assert.equal(recall({ ...emptyTally(), fp: 3 }), null);
    assert.deepEqual(sumTallies([t, t]), { tp: 2, fp: 4, fn: 2, tn: 2, skipped: 4 });
  });

  it('tallies pairs per check and lists the disagreements', () => {
    const pairs: Pair[] = [
      { check: 'a', site: 's', url: 'u1', ours: 'fail', lighthouse: 'fail' },
      { check: 'a', site: 's', url: 'u2', ours: 'pass', lighthouse: 'fail' },
      { check: 'b', site: 's', url: 'u1', ours: 'fail', lighthouse: 'na' },
      { check: 'b', site: 's', url: 'u2', ours: 'na', lighthouse: 'fail' },
    ];
    const byCheck = tallyByCheck(pairs);
    assert.deepEqual([...byCheck.keys()], ['a', 'b']);
    assert.deepEqual(byCheck.get('a'), { tp: 1, fp: 0, fn: 1, tn: 0, skipped: 0 });
    assert.deepEqual(byCheck.get('b'), { tp: 0, fp: 1, fn: 0, tn: 0, skipped: 1 });
    assert.deepEqual(
      disagreements(pairs).map((p) => `${p.check} ${p.url}`),
      ['a u2', 'b u1'],
    );
  });

  it('ranks sites by performance and compares the rankings', () => {
    const scores = [
      { site: 'heavy', lighthouse: 41, ours: 55 },
      { site: 'light', lighthouse: 99, ours: 100 },
      { site: 'middle', lighthouse: 80, ours: 81 },
    ];
    assert.deepEqual(rankBy(scores, 'lighthouse'), ['light', 'middle', 'heavy']);
    assert.equal(sameRanking(scores), true);
    const swapped = [...scores, { site: 'near', lighthouse: 83, ours: 70 }];
    assert.equal(sameRanking(swapped), false);
    // Within Lighthouse's own run-to-run variance the order is not held against us.
    assert.equal(sameRanking(swapped, 5), true);
  });
});
