import type { Db } from '../db/knex';

/** Before any live audit was measured: a conservative guess. */
export const DEFAULT_MS_PER_PAGE = 150;
const CACHE_MS = 30_000;
let cached: { msPerPage: number; until: number } | null = null;

/** Folds one finished crawl into the exponentially weighted average (recent crawls weigh 20 %). */
export async function recordCrawlSpeed(db: Db, sample: { pages: number; durationMs: number; at: Date }): Promise<void> {
  if (sample.pages <= 0) return;
  const msPerPage = sample.durationMs / sample.pages;
  await db.raw(
    `INSERT INTO crawl_speed (id, ms_per_page, samples, updated_at) VALUES (1, ?, 1, ?)
     ON CONFLICT (id) DO UPDATE SET ms_per_page = crawl_speed.ms_per_page * 0.8 + EXCLUDED.ms_per_page * 0.2,
       samples = crawl_speed.samples + 1, updated_at = EXCLUDED.updated_at`,
    [msPerPage, sample.at],
  );
}

/** The measured average, read at most every 30 s per process (it moves slowly). */
export async function currentMsPerPage(db: Db): Promise<number> {
  if (cached && cached.until > Date.now()) return cached.msPerPage;
  const row = await db('crawl_speed').where({ id: 1 }).first('ms_per_page');
  cached = { msPerPage: row ? Number(row.ms_per_page) : DEFAULT_MS_PER_PAGE, until: Date.now() + CACHE_MS };
  return cached.msPerPage;
}
