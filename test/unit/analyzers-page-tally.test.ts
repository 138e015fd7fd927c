import assert from 'node:assert/strict';
import { metaDescMissing, titleDuplicate } from '../../src/analyzers/seo-page';
import type { SnapshotPage } from '../../src/analyzers/snapshot';
import {
  DistinctPerKey,
  MAX_FINDINGS_PER_ANALYZER,
  PageTally,
  pageFail,
  perPage,
  pageWarn,
  type Analyzer,
  type AnalyzerOutcome,
} from '../../src/analyzers/types';
import { ISSUES_KEPT_UP_TO } from '../../src/analyzers/page-tally';
import type { Issue, PageResult } from '../../src/analyzers/types';
import { runAnalyzerOn } from '../support/analyzer-run';

// Duplicate grouping keeps a set only for groups (or keys) with a second URL (issue 21): these pin
// the exact groups, counts and URL order that a set per group produced.

const ORIGIN = 'https://example.com';

function htmlPage(path: string, head: string): SnapshotPage {
  const url = `${ORIGIN}${path}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">${head}</head><body><h1>Hi</h1></body></html>`,
    ttfbMs: 100,
    bytes: 10_000,
    depth: 1,
    redirectChain: [],
  };
}

const run = (a: Analyzer, pages: SnapshotPage[]): AnalyzerOutcome => runAnalyzerOn(a, ORIGIN, pages);

/** 60 pages with unique titles of a good length (30–60 wide), three of them (7, 31, 52) sharing one. */
const SHARED = 'Stainless steel hex bolts, M8 | Acme supply';
const unique = (i: number) => `Item number ${String(i).padStart(3, '0')} of the catalogue | Acme`;
const titled = (i: number) => ([7, 31, 52].includes(i) ? SHARED : unique(i));

describe('duplicate grouping (PageTally, DistinctPerKey)', () => {
  it('DistinctPerKey counts distinct values per key, one value kept without a set', () => {
    const d = new DistinctPerKey();
    assert.equal(d.count('a'), 0);
    d.add('a', 'x');
    d.add('a', 'x');
    assert.equal(d.count('a'), 1);
    d.add('a', 'y');
    d.add('a', 'x');
    d.add('a', 'z');
    assert.equal(d.count('a'), 3);
    d.add('b', 'x');
    assert.equal(d.count('b'), 1);
  });

  it('PageTally names each URL of a group once, in first-seen order, with exact counts', () => {
    const tally = new PageTally();
    const shared = () => pageFail('Shared problem.', 'evidence', 'shared');
    for (let i = 0; i < 50; i++) tally.add(`${ORIGIN}/u${i}`, pageWarn(`Unique ${i}.`, `e${i}`, `unique ${i}`));
    tally.add(`${ORIGIN}/a`, shared());
    tally.add(`${ORIGIN}/a`, shared()); // the same URL again, straight after: not a second URL
    tally.add(`${ORIGIN}/b`, shared());
    tally.add(`${ORIGIN}/a`, shared()); // again, once the group holds a set
    tally.add(`${ORIGIN}/c`, shared());
    tally.add(`${ORIGIN}/u3`, pageWarn('Unique 3.', 'e3', 'unique 3')); // a one-URL group's URL again
    tally.add(`${ORIGIN}/u4`, pageWarn('Unique 4.', 'e4', 'unique 4'));
    tally.add(`${ORIGIN}/u5`, pageWarn('Unique 5.', 'e5', 'unique 5'));
    tally.add(`${ORIGIN}/u4`, pageWarn('Unique 4.', 'e4', 'unique 4'));
    const out = tally.outcome();
    assert.equal(out.status, 'fail');
    assert.equal(out.findings.length, MAX_FINDINGS_PER_ANALYZER);
    assert.deepEqual(out.findings[0]!.urls, [`${ORIGIN}/a`, `${ORIGIN}/b`, `${ORIGIN}/c`]);
    assert.equal(out.findings[0]!.message, 'Shared problem. Found at 3 URLs.');
    // The one-URL groups keep their order, each URL named once; past the cap they fold into the last.
    assert.deepEqual(out.findings[1]!.urls, [`${ORIGIN}/u0`]);
    assert.deepEqual(out.findings[3]!.urls, [`${ORIGIN}/u2`]);
    assert.deepEqual(out.findings[4]!.urls, [`${ORIGIN}/u3`]);
    assert.equal(out.findings[4]!.message, 'Unique 3.');
    const folded = out.findings[MAX_FINDINGS_PER_ANALYZER - 1]!;
    assert.deepEqual(
      folded.urls,
      Array.from({ length: 50 - 18 }, (_, i) => `${ORIGIN}/u${i + 18}`),
    );
    // 59 page results: 54 warn (½ each) and 5 fail.
    assert.equal(out.score, ((50 + 4) * 0.5) / 59);
  });

  it('PageTally groups subjects alike whatever their whitespace, and only those', () => {
    const tally = new PageTally();
    const subjects = ['a b', ' a b', 'a  b', 'a\tb', 'a b\n', 'ab', 'a\u00a0b', 'a b c'];
    subjects.forEach((subject, i) => tally.add(`${ORIGIN}/s${i}`, pageWarn(`Message ${i}.`, 'e', subject)));
    const urls = tally.outcome().findings.map((f) => f.urls);
    // U+00A0 is whitespace to \s and trim(), so it collapses to a space as well.
    assert.deepEqual(urls, [[0, 1, 2, 3, 4, 6].map((i) => `${ORIGIN}/s${i}`), [`${ORIGIN}/s5`], [`${ORIGIN}/s7`]]);
  });

  it('SEO_TITLE_DUPLICATE: a title shared by 3 pages among many unique ones is one finding naming those 3', () => {
    const pages = Array.from({ length: 60 }, (_, i) => htmlPage(`/p${i}`, `<title>${titled(i)}</title>`));
    const out = run(titleDuplicate, pages);
    assert.equal(out.status, 'fail');
    assert.equal(out.findings.length, 1);
    const f = out.findings[0]!;
    assert.deepEqual(f.urls, [`${ORIGIN}/p7`, `${ORIGIN}/p31`, `${ORIGIN}/p52`]);
    assert.equal(f.message, 'The same title is used on 3 different pages. Found at 3 URLs.');
    assert.equal(f.subject, `duplicate ${SHARED}`);
    assert.equal(out.score, 57 / 60);
  });

  it('SEO_TITLE_DUPLICATE: unique short titles each make their own finding, every URL named once', () => {
    // 30 unique titles under 30 wide (one warning each) and the shared one at three pages.
    const pages = Array.from({ length: 33 }, (_, i) =>
      htmlPage(`/q${i}`, `<title>${[4, 20, 32].includes(i) ? SHARED : `Short ${i}`}</title>`),
    );
    const out = run(titleDuplicate, pages);
    assert.equal(out.findings.length, MAX_FINDINGS_PER_ANALYZER);
    assert.deepEqual(out.findings[0]!.urls, [`${ORIGIN}/q4`, `${ORIGIN}/q20`, `${ORIGIN}/q32`]);
    const named = out.findings.slice(1).flatMap((f) => f.urls);
    const shortUrls = pages.map((p) => p.url).filter((_, i) => ![4, 20, 32].includes(i));
    assert.deepEqual(named, shortUrls);
    assert.match(out.findings[1]!.message, /^The title is only 7 characters wide/);
  });

  it('SEO_META_DESC_MISSING: a description shared by 3 pages among unique ones warns those 3 only', () => {
    const desc = (i: number) =>
      [2, 9, 40].includes(i) ? 'The same words on several pages.' : `Words unique to page ${i}.`;
    const pages = Array.from({ length: 45 }, (_, i) =>
      htmlPage(`/d${i}`, `<title>${unique(i)}</title><meta name="description" content="${desc(i)}">`),
    );
    const out = run(metaDescMissing, pages);
    assert.equal(out.status, 'warn');
    assert.equal(out.findings.length, 1);
    assert.deepEqual(out.findings[0]!.urls, [`${ORIGIN}/d2`, `${ORIGIN}/d9`, `${ORIGIN}/d40`]);
    assert.equal(out.findings[0]!.message, 'The same meta description is used on several pages. Found at 3 URLs.');
    assert.equal(out.score, (42 + 1.5) / 45);
  });

  it('perPage past ISSUES_KEPT_UP_TO groups lets the wording go and asks again, only as far as it needs: the same outcome as a tally that keeps it', () => {
    // Pages with a unique subject each (a title-length warning), a few shared problems (warn first,
    // then failing), and one URL coming twice: more groups than perPage keeps the wording of.
    const pages = Array.from({ length: ISSUES_KEPT_UP_TO + 500 }, (_, i) => ({ url: `${ORIGIN}/p${i % 1_400}` }));
    const verdict = (i: number): PageResult => {
      const issues: Issue[] = [
        { outcome: 'warn', message: `Title ${i} is short.`, evidence: `<title>${i}</title>`, subject: `short ${i}` },
      ];
      if (i % 7 === 0)
        issues.push({
          outcome: i > 700 ? 'fail' : 'warn',
          message: `Shared problem, worded on page ${i}.`,
          evidence: 'x',
          subject: 'shared',
        });
      if (i % 11 === 0) issues.push({ outcome: 'fail', message: 'A header is missing.', evidence: 'h' });
      return { outcome: issues.some((x) => x.outcome === 'fail') ? 'fail' : 'warn', issues };
    };
    let checks = 0;
    const indexed = pages.map((p, i) => ({ ...p, i }));
    const limited = perPage(indexed, (p) => {
      checks++;
      return verdict(p.i);
    });
    const keeping = new PageTally();
    indexed.forEach((p) => keeping.add(p.url, verdict(p.i)));
    // Every page checked once to count; then again until each shown group's wording is final, which
    // for the shared subject is its first failing page (page 707).
    assert.equal(checks, pages.length + 708);
    assert.deepEqual(limited, keeping.outcome());
    assert.equal(limited.findings.length, MAX_FINDINGS_PER_ANALYZER);
    // The shared subject's wording is its first failing page's; its URLs each once.
    assert.equal(limited.findings[0]!.message, 'Shared problem, worded on page 707. Found at 200 URLs.');
    // Under the limit, one check per page, and the same outcome as the tally.
    let few = 0;
    const small = indexed.slice(0, 100);
    const kept = new PageTally();
    small.forEach((p) => kept.add(p.url, verdict(p.i)));
    assert.deepEqual(
      perPage(small, (p) => {
        few++;
        return verdict(p.i);
      }),
      kept.outcome(),
    );
    assert.equal(few, small.length);
  });
});
