import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { presentAuditStatus } from '../../presenters/audits';
import { presentReportLink, presentReportRendering } from '../../presenters/reports';
import { brandingRevision } from '../../reports/branding-repository';
import type { ReportRenderRequests } from '../../reports/render-requests';
import { reportLinkUrl, signReportLink } from '../../reports/report-link';
import type { SigningKeyring } from '../../reports/signing-keys';
import type { ReportStorage } from '../../reports/storage';
import { findReport, renderedFromResult, reportIsCurrent } from '../../reports/stored-reports';
import type { ApiState } from '../context';
import { tierGate } from '../middleware/tier-gate';
import type { ReadModel } from '../read-model';
import { requireAudit } from './audit-lookup';

export interface ReportRouteDeps {
  db: Db;
  config: Config;
  clock: Clock;
  readModel: ReadModel;
  reports: ReportRenderRequests;
  storage: ReportStorage;
  keyring: SigningKeyring;
  baseUrl: () => string;
}

// A rendering report is usually ready within a couple of seconds of the 202.
const RENDER_RETRY_AFTER_SECONDS = 2;

/** PDF reports (pro and up): the signed link to an audit's report, rendered first when needed. */
export function reportRoutes(deps: ReportRouteDeps): Router<ApiState> {
  const router = new Router<ApiState>();

  router.get('/audits/:auditId/pdf', tierGate('pdf_reports'), async (ctx) => {
    const audit = await requireAudit(ctx, deps.readModel);
    if (audit.status !== 'completed') {
      ctx.body = presentAuditStatus(audit);
      return;
    }
    const scope = { workspaceId: audit.workspace_id, mode: audit.mode };
    const revision = await brandingRevision(deps.db, scope);
    let report = await findReport(deps.db, audit.id);
    if (!reportIsCurrent(report, audit, revision)) {
      const subject = { auditId: audit.id, domain: audit.domain, ...scope };
      const outcome = await deps.reports.renderAndWait(subject, revision, deps.config.reportWaitMs);
      report = await findReport(deps.db, audit.id);
      // Branding changed again meanwhile: the render just finished still shows this result.
      if (outcome === 'pending' || !renderedFromResult(report, audit)) {
        ctx.status = 202;
        ctx.set('Retry-After', String(RENDER_RETRY_AFTER_SECONDS));
        ctx.body = presentReportRendering(
          audit,
          new Date(deps.clock.now().getTime() + RENDER_RETRY_AFTER_SECONDS * 1000),
        );
        return;
      }
    }
    const now = deps.clock.now();
    const { params, expiresAt } = signReportLink(await deps.keyring.signingKey(now), audit.id, now);
    ctx.body = presentReportLink(audit.id, reportLinkUrl(deps.baseUrl(), params), expiresAt);
  });

  return router;
}
