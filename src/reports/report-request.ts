import type { AuditRow } from '../audits/repository';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { brandingRevision } from './branding-repository';
import type { ReportRenderRequests } from './render-requests';
import { reportLinkUrl, signReportLink } from './report-link';
import type { SigningKeyring } from './signing-keys';
import { findReport, renderedFromResult, reportIsCurrent } from './stored-reports';

export interface ReportRequestDeps {
  db: Db;
  config: Config;
  clock: Clock;
  reports: ReportRenderRequests;
  keyring: SigningKeyring;
  baseUrl: () => string;
}

/**
 * A completed audit's PDF report as a signed link, rendered first when there is none for its
 * current branding (waiting up to REPORT_WAIT_MS); 'rendering' when it is not ready yet. The API's
 * GET /audits/{id}/pdf and the dashboard's PDF link both ask here.
 */
export async function requestReportLink(
  deps: ReportRequestDeps,
  audit: AuditRow,
): Promise<{ url: string; expiresAt: Date } | 'rendering'> {
  const scope = { workspaceId: audit.workspace_id, mode: audit.mode };
  const revision = await brandingRevision(deps.db, scope);
  let report = await findReport(deps.db, audit.id);
  if (!reportIsCurrent(report, audit, revision)) {
    const subject = { auditId: audit.id, domain: audit.domain, ...scope };
    const outcome = await deps.reports.renderAndWait(subject, revision, deps.config.reportWaitMs);
    report = await findReport(deps.db, audit.id);
    // Branding changed again meanwhile: the render just finished still shows this result.
    if (outcome === 'pending' || !renderedFromResult(report, audit)) return 'rendering';
  }
  const now = deps.clock.now();
  const { params, expiresAt } = signReportLink(await deps.keyring.signingKey(now), audit.id, now);
  return { url: reportLinkUrl(deps.baseUrl(), params), expiresAt };
}
