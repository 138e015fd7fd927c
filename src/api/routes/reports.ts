import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { presentAuditStatus } from '../../presenters/audits';
import { presentReportLink, presentReportRendering } from '../../presenters/reports';
import type { ReportRenderRequests } from '../../reports/render-requests';
import { requestReportLink } from '../../reports/report-request';
import type { SigningKeyring } from '../../reports/signing-keys';
import type { ReportStorage } from '../../reports/storage';
import type { ApiState } from '../context';
import { tierGate } from '../middleware/tier-gate';
import type { ReadModel } from '../read-model';
import { requireAudit } from './audit-lookup';
import { runningEstimateInputs } from '../../audits/estimate';

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
      ctx.body = presentAuditStatus(audit, await runningEstimateInputs(deps.db, deps.config.pageBudgets));
      return;
    }
    const link = await requestReportLink(deps, audit);
    if (link === 'rendering') {
      ctx.status = 202;
      ctx.set('Retry-After', String(RENDER_RETRY_AFTER_SECONDS));
      ctx.body = presentReportRendering(
        audit,
        new Date(deps.clock.now().getTime() + RENDER_RETRY_AFTER_SECONDS * 1000),
      );
      return;
    }
    ctx.body = presentReportLink(audit.id, link.url, link.expiresAt);
  });

  return router;
}
