import type { AuditRow } from '../audits/repository';
import { iso } from './iso';

/** One audit in a list: what a table row shows. */
export function presentAuditSummary(
  row: Pick<AuditRow, 'id' | 'domain' | 'status' | 'score' | 'completed_at' | 'created_at'>,
) {
  return {
    audit_id: row.id,
    domain: row.domain,
    status: row.status,
    score: row.score,
    completed_at: iso(row.completed_at),
    created_at: iso(row.created_at),
  };
}

/** An audit that has no result (yet): where it stands, and why it failed if it did. */
export function presentAuditStatus(row: AuditRow) {
  return {
    audit_id: row.id,
    domain: row.domain,
    status: row.status,
    estimated_completion: iso(row.estimated_completion),
    ...(row.status === 'failed'
      ? {
          attempts: row.attempts,
          error: { code: row.error_code ?? 'internal_error', message: row.error_message ?? 'the audit failed' },
        }
      : {}),
  };
}

/**
 * A completed audit's result as the stored JSON text, to be served byte for byte (identical to
 * the webhook body); null while the audit has no result.
 */
export function completedAuditJson(row: AuditRow): string | null {
  return row.status === 'completed' ? row.result_json : null;
}

/** The findings of a completed audit; null while the audit has no result. */
export function presentFindings(row: AuditRow): unknown[] | null {
  const json = completedAuditJson(row);
  return json === null ? null : (JSON.parse(json) as { findings: unknown[] }).findings;
}
