import { CATEGORIES } from '../schemas/audit';
import type { HistoryExportRow } from '../sites/history-export';
import { iso } from './iso';

/**
 * A row of GET /sites/{site_id}/history.csv (docs/decisions.md, "Pages and exports"): the fields of
 * GET /sites/{site_id}/history with the category scores flattened into a column each, empty for a
 * category the audit did not score.
 */
export const SITE_HISTORY_CSV_COLUMNS = ['audit_id', 'completed_at', 'score', 'grade', ...CATEGORIES] as const;

export function presentHistoryCsvRow(row: HistoryExportRow): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {
    audit_id: row.id,
    completed_at: iso(row.completed_at),
    score: row.score,
    grade: row.grade,
  };
  for (const category of CATEGORIES) out[category] = row.categories?.[category]?.score ?? null;
  return out;
}
