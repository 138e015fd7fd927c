import type { AuditJson } from '../schemas/audit';
import type { PreviousAudit } from './comparison';

/**
 * The comparison basis of an audit (audits.comparison_basis): everything a later audit of the same
 * site compares with, one entry per distinct fingerprint — tens of kilobytes where the audit JSON of
 * a 2,000-page crawl is megabytes. Also what a site's per-finding history reads.
 */
export interface ComparisonBasis extends PreviousAudit {
  findings: Array<{ fingerprint: string; analyzer: string; severity: AuditJson['findings'][number]['severity'] }>;
}

export function comparisonBasis(audit: AuditJson): ComparisonBasis {
  const seen = new Set<string>();
  const findings: ComparisonBasis['findings'] = [];
  for (const f of audit.findings) {
    if (seen.has(f.fingerprint)) continue;
    seen.add(f.fingerprint);
    findings.push({ fingerprint: f.fingerprint, analyzer: f.analyzer, severity: f.severity });
  }
  return { audit_id: audit.audit_id, score: audit.score, categories: audit.categories, findings };
}
