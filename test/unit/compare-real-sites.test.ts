/**
 * The agreement of our audit with Lighthouse 13 on real static sites nobody here wrote
 * (bench/compare/real-sites.json), kept in bench/compare/real-sites-expected.json by
 * `npm run compare:lighthouse -- --real --pages 20 --write-expected`. Lighthouse's side comes from its committed
 * reports (bench/compare/real-sites-lighthouse.json), so no browser runs here; our side runs live:
 * each site is served on loopback from its extracted copy, crawled and analysed as the comparison
 * does, and a page and check that agreed with Lighthouse and no longer does fails the test. The
 * browser stage's checks are not run here (they need Chromium): the comparison itself covers them.
 * A site whose copy is not in the cache (no network or GitHub here) is skipped, saying how to get it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CHECKS, lighthouseVerdict } from '../../bench/compare/checks';
import { buildExpected, CLASSES, driftFrom, type ExpectedAgreement } from '../../bench/compare/expected';
import type { Pair } from '../../bench/compare/agreement';
import { auditSite } from '../../bench/compare/our-side';
import { pairsOf, type LighthouseCache } from '../../bench/compare/pairs';
import { readExpected, REAL_LIGHTHOUSE_CACHE } from '../../bench/compare/real-run';
import { DEFAULT_CACHE_DIR, isExtracted, loadManifest, siteDir } from '../../bench/compare/real-sites';
import { serveDirectory } from '../../bench/compare/static-server';
import { parseCidrList } from '../../src/outbound/policy';

// Read when the tests run, so a missing file fails them by name instead of failing the file's loading.
let expected: ExpectedAgreement;
let reports: LighthouseCache;
const browserStage = new Set(CHECKS.filter((c) => c.browserStage).map((c) => c.id));

describe('expected agreement arithmetic (bench/compare/expected.ts)', () => {
  const origin = 'http://127.0.0.1:1';
  const origins = new Map([['s', origin]]);
  const pair = (path: string, check: string, ours: Pair['ours'], lighthouse: Pair['lighthouse']): Pair => ({
    site: 's',
    url: `${origin}${path}`,
    check,
    ours,
    lighthouse,
  });
  const before = [
    pair('/', 'document-title', 'pass', 'pass'),
    pair('/', 'link-text', 'fail', 'pass'),
    pair('/a', 'document-title', 'fail', 'fail'),
    pair('/a', 'link-text', 'na', 'na'),
  ];

  it('records every pair, the tallies, and keeps the classes given by hand', () => {
    const first = buildExpected(before, origins, null, 'x');
    assert.deepEqual(first.pages, { s: ['/', '/a'] });
    assert.deepEqual(first.verdicts, {
      's /': { 'document-title': 'pass/pass', 'link-text': 'fail/pass' },
      's /a': { 'document-title': 'fail/fail' },
    });
    assert.equal(first.total.tp, 1);
    assert.equal(first.total.fp, 1);
    assert.equal(first.checks['link-text']?.precision, 0);
    assert.deepEqual(
      first.disagreements.map((d) => [d.path, d.check, d.kind, d.class]),
      [['/', 'link-text', 'FP', 'unclassified']],
    );
    const classified = {
      ...first,
      disagreements: [{ ...first.disagreements[0]!, class: 'rule-differs' as const, note: 'why' }],
    };
    const again = buildExpected(before, origins, classified, 'x');
    assert.equal(again.disagreements[0]?.class, 'rule-differs');
    assert.equal(again.disagreements[0]?.note, 'why');
  });

  it('fails a pair that agreed and no longer does, or lost our verdict; a disagreement gone is an improvement', () => {
    const expected = buildExpected(before, origins, null, 'x');
    const all = () => true;
    assert.deepEqual(driftFrom(expected, before, origins, all), { regressions: [], improvements: [] });
    const worse = [pair('/', 'document-title', 'fail', 'pass'), ...before.slice(1)];
    assert.deepEqual(driftFrom(expected, worse, origins, all).regressions, [
      's / document-title: we now say fail, Lighthouse pass',
    ]);
    const silent = [...before.slice(0, 2), pair('/a', 'document-title', 'na', 'fail'), before[3]!];
    assert.deepEqual(driftFrom(expected, silent, origins, all).regressions, [
      's /a document-title: no verdict of ours any more',
    ]);
    const better = [before[0]!, pair('/', 'link-text', 'pass', 'pass'), ...before.slice(2)];
    assert.deepEqual(driftFrom(expected, better, origins, all), {
      regressions: [],
      improvements: ['s / link-text: we now say pass, as Lighthouse'],
    });
    // A page no longer compared, and checks left out of the comparison.
    assert.equal(driftFrom(expected, before.slice(0, 2), origins, all).regressions.length, 1);
    assert.deepEqual(driftFrom(expected, worse, origins, (c) => c !== 'document-title').regressions, []);
  });
});

describe('compare:lighthouse on real sites (expected agreement)', function () {
  this.timeout(180_000);
  before(function () {
    const file = readExpected();
    // Until a comparison run has recorded the agreement and its Lighthouse reports, there is nothing to hold to.
    if (!file || !fs.existsSync(REAL_LIGHTHOUSE_CACHE)) {
      console.log(
        '      no expected agreement recorded yet: npm run compare:lighthouse -- --real --pages 20 --write-expected',
      );
      this.skip();
    }
    expected = file!;
    reports = JSON.parse(fs.readFileSync(REAL_LIGHTHOUSE_CACHE, 'utf8')) as LighthouseCache;
  });

  it('lists every site of the manifest, each disagreement classified by hand', () => {
    assert.deepEqual(
      Object.keys(expected.pages).sort(),
      loadManifest()
        .map((s) => s.id)
        .sort(),
    );
    for (const d of expected.disagreements) {
      assert.ok(d.class in CLASSES && d.class !== 'unclassified', `${d.site} ${d.path} ${d.check}: ${d.class}`);
      assert.ok(d.note.length > 0, `${d.site} ${d.path} ${d.check}: a classified disagreement says why`);
    }
  });

  it('reads the same Lighthouse verdicts from the committed reports as the expected file records', () => {
    for (const [page, checks] of Object.entries(expected.verdicts)) {
      const report = reports[page];
      assert.ok(report, `no Lighthouse report for ${page}`);
      for (const [id, pair] of Object.entries(checks)) {
        const check = CHECKS.find((c) => c.id === id);
        assert.ok(check, `unknown check ${id}`);
        assert.equal(lighthouseVerdict(check, report.audits), pair.split('/')[1], `${page} ${id}`);
      }
    }
  });

  for (const site of loadManifest()) {
    it(`${site.id} (${site.generator}, ${site.language}): no page and check agrees with Lighthouse less than recorded`, async function () {
      if (!isExtracted(DEFAULT_CACHE_DIR, site)) {
        console.log(
          `    skipped: ${site.repo}@${site.commit.slice(0, 12)} is not extracted in ${DEFAULT_CACHE_DIR}` +
            ' (node --import tsx bench/real-sites.ts extracts it, from a mirror or GitHub)',
        );
        this.skip();
      }
      const server = await serveDirectory(siteDir(DEFAULT_CACHE_DIR, site), site.origins);
      try {
        const ours = await auditSite(server.origin, {
          allow: parseCidrList('127.0.0.0/8'),
          pageBudget: 50,
          tier: 'team',
          pool: null,
        });
        const paths = expected.pages[site.id] ?? [];
        const crawled = new Set(ours.pages.map((p) => p.finalUrl));
        const urlOf = (p: string) => `${server.origin}${p}`;
        assert.deepEqual(
          paths.filter((p) => !crawled.has(urlOf(p))),
          [],
          'compared pages no longer crawled',
        );
        const lighthouse = paths.map((p) => ({ ...reports[`${site.id} ${p}`]!, url: urlOf(p) }));
        const pairs = pairsOf({ site: site.id, ours, lighthouse });
        const drift = driftFrom(expected, pairs, new Map([[site.id, server.origin]]), (c) => !browserStage.has(c));
        if (drift.improvements.length > 0)
          console.log(
            `    now agreeing with Lighthouse (write the expected file again):\n      ${drift.improvements.join('\n      ')}`,
          );
        assert.deepEqual(drift.regressions, []);
      } finally {
        await server.close();
      }
    });
  }
});
