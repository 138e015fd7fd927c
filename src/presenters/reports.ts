import type { AuditRow } from '../audits/repository';
import { iso } from './iso';

/** A signed link to an audit's PDF report; the link itself is the credential until it expires. */
export function presentReportLink(auditId: string, url: string, expiresAt: Date) {
  return { audit_id: auditId, url, expires_at: iso(expiresAt) };
}

/** The report is being rendered: like an audit's status envelope, ready about `estimatedCompletion`. */
export function presentReportRendering(audit: Pick<AuditRow, 'id' | 'domain'>, estimatedCompletion: Date) {
  return {
    audit_id: audit.id,
    domain: audit.domain,
    status: 'rendering',
    estimated_completion: iso(estimatedCompletion),
  };
}
