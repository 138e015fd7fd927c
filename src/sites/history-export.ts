import type { Db } from '../db/knex';
import type { SiteRow } from './repository';

/**
 * Every completed audit of a site (its workspace, mode and domain), newest first as
 * GET /sites/{site_id}/history lists them, read CHUNK rows at a time for the streamed history.csv
 * (docs/decisions.md, "Pages and exports"). Category scores come from the comparison basis (a few
 * kilobytes) and only for audits stored before bases existed from the whole result.
 */

export interface HistoryExportRow {
  id: string;
  completed_at: Date;
  score: number | null;
  grade: string | null;
  categories: Record<string, { score: number }> | null;
}

export interface HistoryFilter {
  /** Exclusive bounds on completed_at (RFC 3339, UTC), as GET /audits takes them. */
  completedAfter?: string;
  completedBefore?: string;
}

const CHUNK = 1000;

export async function* iterateSiteHistory(
  db: Db,
  site: Pick<SiteRow, 'workspace_id' | 'mode' | 'domain'>,
  filter: HistoryFilter = {},
  chunk = CHUNK,
): AsyncGenerator<HistoryExportRow> {
  let after: { completedAt: string; id: string } | undefined;
  for (;;) {
    const query = db('audits')
      .where({ workspace_id: site.workspace_id, mode: site.mode, domain: site.domain, status: 'completed' })
      .whereNotNull('completed_at')
      .orderBy([
        { column: 'completed_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(chunk)
      .select(
        'id',
        'completed_at',
        'score',
        'grade',
        // The keyset goes on from the stored value itself: a Date would drop its microseconds.
        db.raw('completed_at::text AS completed_key'),
        // COALESCE evaluates its second argument only for rows without a basis.
        db.raw(`COALESCE(comparison_basis -> 'categories', (result_json::jsonb) -> 'categories') AS categories`),
      );
    if (filter.completedAfter) query.where('completed_at', '>', filter.completedAfter);
    if (filter.completedBefore) query.where('completed_at', '<', filter.completedBefore);
    if (after) query.whereRaw('(completed_at, id) < (?::timestamptz, ?)', [after.completedAt, after.id]);
    const rows = (await query) as Array<HistoryExportRow & { completed_key: string }>;
    for (const { completed_key: _key, ...row } of rows) yield row;
    if (rows.length < chunk) return;
    const last = rows[rows.length - 1]!;
    after = { completedAt: last.completed_key, id: last.id };
  }
}
