import assert from 'node:assert/strict';
import { ANALYSIS_SAMPLE_MIN_PAGES, recordCrawlSpeed } from '../../src/audits/crawl-speed';
import type { Db } from '../../src/db/knex';
import { getStack } from '../support/stack';

type SpeedRow = { ms_per_page: number; analysis_ms_per_page: number | null; samples: number };

/** Runs `body` on a crawl_speed of its own: in a transaction rolled back, so no other audit's sample mixes in. */
async function onFreshSpeeds(body: (trx: Db) => Promise<void>): Promise<void> {
  const { db } = await getStack();
  await db
    .transaction(async (trx) => {
      await trx('crawl_speed').del();
      await body(trx as unknown as Db);
      throw new Error('rolled back');
    })
    .catch((err: Error) => assert.equal(err.message, 'rolled back'));
}

const read = (db: Db): Promise<SpeedRow> => db('crawl_speed').where({ id: 1 }).first();

describe('the measured analysis speed', () => {
  const at = new Date('2026-11-29T12:00:00Z');

  it('is sampled only from audits large enough that their per-page cost outweighs the fixed one', async () => {
    await onFreshSpeeds(async (db) => {
      // A 10-page audit analysed in 2.5 s: its crawl speed counts, its analysis does not (250 ms a page would be absurd).
      await recordCrawlSpeed(db, { pages: 10, durationMs: 1_000, analysisMs: 2_500, analysisFixedMs: 2_000, at });
      let row = await read(db);
      assert.equal(row.ms_per_page, 100);
      assert.equal(row.analysis_ms_per_page, null);
      // 100,000 pages analysed in 92 s: (92 - 2) s over 100,000 pages = 0.9 ms a page.
      await recordCrawlSpeed(db, {
        pages: 100_000,
        durationMs: 200_000,
        analysisMs: 92_000,
        analysisFixedMs: 2_000,
        at,
      });
      row = await read(db);
      assert.equal(row.analysis_ms_per_page, 0.9);
      // A later large audit at 1.4 ms a page weighs 20 %; a small one or one without a measure leaves it.
      const pages = ANALYSIS_SAMPLE_MIN_PAGES;
      await recordCrawlSpeed(db, {
        pages,
        durationMs: 1_000,
        analysisMs: 2_000 + 1.4 * pages,
        analysisFixedMs: 2_000,
        at,
      });
      await recordCrawlSpeed(db, {
        pages: pages - 1,
        durationMs: 1_000,
        analysisMs: 60_000,
        analysisFixedMs: 2_000,
        at,
      });
      await recordCrawlSpeed(db, { pages: 50_000, durationMs: 1_000, analysisFixedMs: 2_000, at });
      row = await read(db);
      assert.ok(Math.abs(row.analysis_ms_per_page! - (0.9 * 0.8 + 1.4 * 0.2)) < 1e-9, String(row.analysis_ms_per_page));
      assert.equal(row.samples, 5);
    });
  });
});
