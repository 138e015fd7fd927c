import type { Db } from '../db/knex';

/** How fast live audits have been going on this deployment: the estimates' rates. */
export interface MeasuredSpeeds {
  /** Crawl time per page (fetching, parsing links, checking targets). */
  msPerPage: number;
  /** Analysis time per page after the crawl (observing every page in parts, finishing, storing facts). */
  analysisMsPerPage: number;
}

/** Before any live audit was measured: conservative guesses (the analysis: measured by bench:wholesite). */
export const DEFAULT_MS_PER_PAGE = 150;
export const DEFAULT_ANALYSIS_MS_PER_PAGE = 1;
/**
 * A smaller audit's analysis is mostly its fixed cost (the estimate's LIVE_FINISH_MS), which divided
 * by a few pages would make a per-page rate that overestimates every large site a hundredfold.
 */
export const ANALYSIS_SAMPLE_MIN_PAGES = 1_000;
const CACHE_MS = 30_000;
let cached: { speeds: MeasuredSpeeds; until: number } | null = null;

/**
 * Folds one finished live audit into the exponentially weighted averages (recent audits weigh 20 %):
 * its crawl always, its analysis (`analysisMs` beyond the fixed `analysisFixedMs`) when it had at
 * least ANALYSIS_SAMPLE_MIN_PAGES pages.
 */
export async function recordCrawlSpeed(
  db: Db,
  sample: { pages: number; durationMs: number; analysisMs?: number; analysisFixedMs: number; at: Date },
): Promise<void> {
  if (sample.pages <= 0) return;
  const msPerPage = sample.durationMs / sample.pages;
  const analysis =
    sample.analysisMs !== undefined && sample.pages >= ANALYSIS_SAMPLE_MIN_PAGES
      ? Math.max(0, sample.analysisMs - sample.analysisFixedMs) / sample.pages
      : null;
  await db.raw(
    `INSERT INTO crawl_speed (id, ms_per_page, analysis_ms_per_page, samples, updated_at) VALUES (1, ?, ?, 1, ?)
     ON CONFLICT (id) DO UPDATE SET ms_per_page = crawl_speed.ms_per_page * 0.8 + EXCLUDED.ms_per_page * 0.2,
       analysis_ms_per_page = CASE
         WHEN EXCLUDED.analysis_ms_per_page IS NULL THEN crawl_speed.analysis_ms_per_page
         WHEN crawl_speed.analysis_ms_per_page IS NULL THEN EXCLUDED.analysis_ms_per_page
         ELSE crawl_speed.analysis_ms_per_page * 0.8 + EXCLUDED.analysis_ms_per_page * 0.2 END,
       samples = crawl_speed.samples + 1, updated_at = EXCLUDED.updated_at`,
    [msPerPage, analysis, sample.at],
  );
}

/** The measured averages, read at most every 30 s per process (they move slowly). */
export async function currentSpeeds(db: Db): Promise<MeasuredSpeeds> {
  if (cached && cached.until > Date.now()) return cached.speeds;
  const row: { ms_per_page: number; analysis_ms_per_page: number | null } | undefined = await db('crawl_speed')
    .where({ id: 1 })
    .first('ms_per_page', 'analysis_ms_per_page');
  const speeds = {
    msPerPage: row ? Number(row.ms_per_page) : DEFAULT_MS_PER_PAGE,
    analysisMsPerPage:
      row?.analysis_ms_per_page != null ? Number(row.analysis_ms_per_page) : DEFAULT_ANALYSIS_MS_PER_PAGE,
  };
  cached = { speeds, until: Date.now() + CACHE_MS };
  return speeds;
}
