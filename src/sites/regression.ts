import type { Db } from '../db/knex';
import type { Mode } from '../schemas/audit';
import { siteOfDomain } from './repository';

/** A drop of this many points or more since the previous audit is a regression. */
export const REGRESSION_SCORE_DROP = 5;
const REGRESSING_SEVERITIES = ['high', 'critical'];

interface StoredFinding {
  fingerprint?: string;
  analyzer: string;
  severity: string;
  title: string;
}

interface StoredAudit {
  audit_id: string;
  score: number;
  findings: StoredFinding[];
  comparison?: { previous_audit_id: string; previous_score: number; score_delta: number; new: string[] };
}

export interface Regression {
  previousAuditId: string;
  previousScore: number;
  score: number;
  newFindings: Array<{ fingerprint: string; analyzer: string; severity: string; title: string }>;
}

/**
 * Whether a completed audit regressed (docs/decisions.md, Monitoring → site.regressed): its
 * comparison shows the score 5 or more points down, or a new high or critical finding. `new`
 * already leaves out what the site's triage ignored or accepted. Null without a comparison.
 */
export function regressionOf(resultJson: string): Regression | null {
  const audit = JSON.parse(resultJson) as StoredAudit;
  const comparison = audit.comparison;
  if (!comparison) return null;
  const fresh = new Set(comparison.new);
  const newFindings = audit.findings
    .filter(
      (f): f is StoredFinding & { fingerprint: string } => f.fingerprint !== undefined && fresh.has(f.fingerprint),
    )
    .map((f) => ({ fingerprint: f.fingerprint, analyzer: f.analyzer, severity: f.severity, title: f.title }));
  const dropped = comparison.score_delta <= -REGRESSION_SCORE_DROP;
  const severe = newFindings.some((f) => REGRESSING_SEVERITIES.includes(f.severity));
  if (!dropped && !severe) return null;
  return {
    previousAuditId: comparison.previous_audit_id,
    previousScore: comparison.previous_score,
    score: audit.score,
    newFindings,
  };
}

/** The site a completed audit belongs to when the audit regressed; null otherwise (no site, no regression). */
export async function regressedSite(
  db: Db,
  audit: { workspace_id: string; mode: Mode; domain: string; result_json: string | null },
): Promise<string | null> {
  if (audit.result_json === null || regressionOf(audit.result_json) === null) return null;
  const site = await siteOfDomain(db, { workspaceId: audit.workspace_id, mode: audit.mode, domain: audit.domain });
  return site?.id ?? null;
}

/** The body of site.regressed (docs/decisions.md, Monitoring). */
export function siteRegressedBody(input: { siteId: string; auditId: string; regression: Regression }): string {
  const { regression } = input;
  return JSON.stringify({
    site_id: input.siteId,
    audit_id: input.auditId,
    previous_audit_id: regression.previousAuditId,
    score: regression.score,
    previous_score: regression.previousScore,
    new_findings: regression.newFindings,
  });
}
