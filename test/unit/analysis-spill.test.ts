/**
 * The analysis keeps each analyzer's per-page observations in a scratch file, not in memory
 * (src/analyzers/observation-spill.ts). Spilling after every page must give exactly the result of a
 * run that never spills, on real crawls of the fixture sites, and the scratch file must go when the
 * run ends, whether it finishes or fails.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { runAnalyzers, runAnalyzersOverBodies, type Analyzer } from '../../src/analyzers';
import { ObservationSpill } from '../../src/analyzers/observation-spill';
import { PAGE_PASS } from '../../src/analyzers/types';
import { crawlFixtureSite } from '../support/fixture-crawl';
import { useLoopbackGuard } from '../support/loopback-guard';

const SITES = ['broken-seo', 'broken-sec-perf', 'ssg-docs', 'ssg-shop', 'accuracy'] as const;

/** Scratch directories made while `run` runs (the spill's only trace on disk). */
async function scratchDirsDuring<T>(run: () => Promise<T>): Promise<{ result: T; dirs: string[] }> {
  const dirs: string[] = [];
  const close = ObservationSpill.prototype.close;
  ObservationSpill.prototype.close = function (this: ObservationSpill) {
    const dir = this.scratchDir;
    if (dir) dirs.push(dir);
    close.call(this);
  };
  try {
    return { result: await run(), dirs };
  } finally {
    ObservationSpill.prototype.close = close;
  }
}

describe('analysis observations spilled to a scratch file', function () {
  this.timeout(60_000);
  useLoopbackGuard();

  for (const site of SITES) {
    it(`${site}: spilling after every page gives the same analyzers, findings and pages as keeping them all`, async () => {
      const snapshot = await crawlFixtureSite(site);
      assert.ok(snapshot.pages.length >= 3, `${site} crawled ${snapshot.pages.length} pages`);
      const kept = runAnalyzers(snapshot, { spillChunkPages: Number.MAX_SAFE_INTEGER });
      const { result: spilled, dirs } = await scratchDirsDuring(async () =>
        runAnalyzers(snapshot, { spillChunkPages: 1 }),
      );
      // The summaries are compared page by page, not as the stores holding them.
      const plain = (r: typeof kept) => ({ ...r, pages: [...r.pages] });
      assert.deepEqual(plain(spilled), plain(kept));
      assert.equal(spilled.pages.length, snapshot.pages.length);
      assert.equal(dirs.length, 1, 'one scratch file per run');
      assert.equal(fs.existsSync(dirs[0]!), false, 'the scratch file is removed when the run finishes');
    });
  }

  it('removes the scratch file when the pages cannot be read to the end', async () => {
    const snapshot = await crawlFixtureSite('ssg-docs');
    async function* failingBodies() {
      for (const page of snapshot.pages.slice(0, 3)) yield page.body;
      throw new Error('the database went away');
    }
    const { result, dirs } = await scratchDirsDuring(() =>
      runAnalyzersOverBodies(snapshot, failingBodies(), { spillChunkPages: 1 }).then(
        () => 'finished',
        (error: Error) => error.message,
      ),
    );
    assert.equal(result, 'the database went away');
    assert.equal(dirs.length, 1);
    assert.equal(fs.existsSync(dirs[0]!), false);
  });

  it('an analyzer that throws on one page is an error, the others are unaffected, with spilling', async () => {
    const snapshot = await crawlFixtureSite('ssg-docs');
    const thrower: Analyzer<number> = {
      code: 'SEO_TITLE_MISSING',
      observe: (p) => {
        if (p.url.endsWith('/')) throw new Error('boom');
        return 1;
      },
      finish: () => ({ status: 'pass', score: 1, findings: [] }),
      run: () => ({ status: 'pass', score: 1, findings: [] }),
    };
    const counter: Analyzer<number> = {
      code: 'SEO_META_DESC_MISSING',
      observe: () => 1,
      finish: (_s, observed) => ({
        status: 'pass',
        score: observed.reduce((sum, o) => sum + o.value, 0) / observed.length,
        findings: [],
      }),
      run: () => ({ status: 'pass', score: 1, findings: [] }),
    };
    const errors: string[] = [];
    const result = runAnalyzers(snapshot, {
      analyzers: [thrower, counter],
      spillChunkPages: 1,
      onError: (code) => errors.push(code),
    });
    assert.deepEqual(errors, ['SEO_TITLE_MISSING']);
    assert.deepEqual(
      result.analyzers.map((a) => [a.code, a.status, a.score]),
      [
        ['SEO_TITLE_MISSING', 'error', 0],
        ['SEO_META_DESC_MISSING', 'pass', 1],
      ],
    );
  });

  it('hands every value back as it was written, shared objects, typed arrays and deep nesting included', () => {
    const spill = new ObservationSpill(1, 2);
    const pass = PAGE_PASS;
    const values = [
      pass,
      pass,
      { outcome: 'fail', issues: [{ outcome: 'fail', message: 'no HSTS', evidence: 'none' }] },
      { links: Float64Array.from([1.5, 2.5]), names: ['a', 'b'], deep: [[[[[[[[[[[[[[[[[['x']]]]]]]]]]]]]]]]]] },
      { seen: new Set(['a']), byUrl: new Map([['u', 'v']]) },
      null,
      'text',
    ];
    try {
      values.forEach((value, page) => {
        spill.push(0, value);
        spill.pageDone(page + 1);
      });
      assert.ok(spill.scratchDir, 'the values went to the scratch file');
      const back: unknown[] = [];
      spill.take(0, (page, value) => (back[page] = value));
      assert.deepEqual(back, values);
      assert.equal(back[0], back[1], 'one object in the chunk it was written in stays one object');
      assert.ok((back[3] as { links: unknown }).links instanceof Float64Array);
      assert.ok((back[4] as { seen: unknown }).seen instanceof Set);
    } finally {
      spill.close();
    }
  });
});
