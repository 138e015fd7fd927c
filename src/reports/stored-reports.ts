import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import type { AuditRow } from '../audits/repository';

/** The stored PDF of an audit (table audit_reports). */
export interface ReportRow {
  audit_id: string;
  branding_revision: string;
  audit_completed_at: Date;
  storage_key: string;
  byte_size: number;
  sha256: string;
  render_ms: number;
  rendered_at: Date;
}

export async function findReport(db: Db | Knex.Transaction, auditId: string): Promise<ReportRow | undefined> {
  return db<ReportRow>('audit_reports').where({ audit_id: auditId }).first();
}

/** A stored report shows the audit's current result with the workspace's current branding. */
export function reportIsCurrent(
  report: ReportRow | undefined,
  audit: Pick<AuditRow, 'completed_at'>,
  revision: number,
): report is ReportRow {
  return !!report && renderedFromResult(report, audit) && Number(report.branding_revision) === revision;
}

/** Rendered from the audit's current result (a re-run test audit has a newer one). */
export function renderedFromResult(
  report: ReportRow | undefined,
  audit: Pick<AuditRow, 'completed_at'>,
): report is ReportRow {
  return (
    !!report && !!audit.completed_at && report.audit_completed_at.getTime() === new Date(audit.completed_at).getTime()
  );
}

/** Report files of these audits, collected before the audits (and by cascade their rows) are deleted. */
export async function reportKeysOf(db: Db | Knex.Transaction, auditIds: readonly string[]): Promise<string[]> {
  if (auditIds.length === 0) return [];
  return db('audit_reports').whereIn('audit_id', auditIds).pluck('storage_key');
}
