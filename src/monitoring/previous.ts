import type { Db } from '../db/knex';
import type { AuditJson, Mode } from '../schemas/audit';
import type { ComparisonBasis } from './basis';
import { withMonitoring, type PreviousAudit } from './comparison';
import { domainTriage } from './site-history';

/** The audit being stored: which site it belongs to (workspace, mode and domain) and when it completed. */
export interface AuditSite {
  auditId: string;
  workspaceId: string;
  mode: Mode;
  domain: string;
}

/**
 * The latest completed audit of the same workspace, mode and domain that completed no later than
 * `completedAt` (docs/decisions.md, Monitoring), read from its comparison basis (the whole result only
 * for audits stored before bases existed). Served by audits_site_history_idx.
 */
export async function loadPreviousAudit(db: Db, site: AuditSite, completedAt: string): Promise<PreviousAudit | null> {
  const row = (await db('audits')
    .where({ workspace_id: site.workspaceId, mode: site.mode, domain: site.domain, status: 'completed' })
    .whereNot('id', site.auditId)
    .where('completed_at', '<=', completedAt)
    .orderBy([
      { column: 'completed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('id', 'comparison_basis')) as { id: string; comparison_basis: ComparisonBasis | null } | undefined;
  if (!row) return null;
  if (row.comparison_basis) return row.comparison_basis;
  const legacy = (await db('audits').where({ id: row.id }).first('result_json')) as { result_json: string | null };
  if (!legacy.result_json) return null;
  const audit = JSON.parse(legacy.result_json) as AuditJson;
  return { audit_id: audit.audit_id, score: audit.score, categories: audit.categories, findings: audit.findings };
}

/** The audit as it is stored and served: with the site's triage and the comparison with its previous audit. */
export async function attachMonitoring(db: Db, site: AuditSite, audit: AuditJson): Promise<AuditJson> {
  const [previous, triage] = await Promise.all([
    loadPreviousAudit(db, site, audit.completed_at),
    domainTriage(db, site),
  ]);
  return withMonitoring(audit, previous, triage);
}
