import type { AuditRow } from '../audits/repository';
import { progressOfRow, type ProgressColumns } from '../audits/progress';
import { estimateRunningCompletion, type RunningEstimateInputs } from '../audits/estimate';
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

/**
 * An audit that has no result (yet): where it stands, and why it failed if it did. A running live
 * audit whose attempt has reported carries `progress`, and its estimate follows the measured rate
 * at `now`; otherwise `progress` is absent and the estimate is the stored one.
 */
export function presentAuditStatus(
  row: AuditRow & Partial<ProgressColumns>,
  /** The budgets audits run with (a crawl's pages left are counted within its tier's) and the measured analysis speed. */
  estimates: RunningEstimateInputs,
  now: Date = new Date(),
) {
  const progress = progressOfRow(row);
  const times =
    row.attempt_started_at && row.phase_started_at
      ? { attemptStartedAt: new Date(row.attempt_started_at), phaseStartedAt: new Date(row.phase_started_at) }
      : undefined;
  return {
    audit_id: row.id,
    domain: row.domain,
    status: row.status,
    estimated_completion: iso(
      progress && times
        ? estimateRunningCompletion(row.tier, progress, times, now, estimates)
        : row.estimated_completion,
    ),
    ...(progress
      ? {
          progress: {
            phase: progress.phase,
            pages_crawled: progress.pagesCrawled,
            pages_discovered: progress.pagesDiscovered,
          },
        }
      : {}),
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
