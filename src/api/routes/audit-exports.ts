import Router from '@koa/router';
import type { Readable } from 'node:stream';
import type { Finding } from '../../schemas/audit';
import type { Db } from '../../db/knex';
import type { PageBudgets } from '../../page-budgets';
import { iterateAuditPages } from '../../audits/crawl-facts-store';
import { findingExportRows } from '../../audits/finding-export';
import { completedAuditJson, presentAuditStatus, presentFindings } from '../../presenters/audits';
import { presentAuditPage } from '../../presenters/crawl-facts';
import { csvStream, FINDING_CSV_COLUMNS, PAGE_CSV_COLUMNS } from '../../presenters/crawl-exports';
import type { ApiContext, ApiState } from '../context';
import type { ReadModel } from '../read-model';
import { requireAudit } from './audit-lookup';
import { runningEstimateInputs } from '../../audits/estimate';

export interface AuditExportDeps {
  db: Db;
  readModel: ReadModel;
  /** config.pageBudgets: the estimate of an audit still running counts within them. */
  pageBudgets: PageBudgets;
  /** Where a download cut off by a failing read is reported (the response has started: no envelope). */
  log?: (message: string, err?: unknown) => void;
}

/**
 * The CSV exports of a completed audit, streamed (docs/decisions.md, "Pages and exports"); the
 * status envelope (JSON) until the audit is completed, as /findings answers.
 */
export function auditExportRoutes(deps: AuditExportDeps): Router<ApiState> {
  const router = new Router<ApiState>();
  const failed = (ctx: ApiContext) => (err: Error) =>
    deps.log?.(`${ctx.method} ${ctx.path} stopped streaming (${ctx.state.requestId})`, err);

  router.get('/audits/:auditId/pages.csv', async (ctx) => {
    const row = await requireAudit(ctx, deps.readModel);
    if (completedAuditJson(row) === null) {
      ctx.body = presentAuditStatus(row, await runningEstimateInputs(deps.db, deps.pageBudgets));
      return;
    }
    async function* rows() {
      for await (const page of iterateAuditPages(deps.db, row.id)) yield presentAuditPage(page);
    }
    sendCsv(ctx, `${row.id}-pages.csv`, csvStream(PAGE_CSV_COLUMNS, rows(), failed(ctx)));
  });

  router.get('/audits/:auditId/findings.csv', async (ctx) => {
    const row = await requireAudit(ctx, deps.readModel);
    const findings = presentFindings(row) as Finding[] | null;
    if (findings === null) {
      ctx.body = presentAuditStatus(row, await runningEstimateInputs(deps.db, deps.pageBudgets));
      return;
    }
    const rows = findingExportRows(deps.db, row.id, findings);
    sendCsv(ctx, `${row.id}-findings.csv`, csvStream(FINDING_CSV_COLUMNS, rows, failed(ctx)));
  });

  return router;
}

/** A CSV download: per key, so never cached; the file is named after the audit (or the site). */
export function sendCsv(ctx: ApiContext, filename: string, body: Readable): void {
  ctx.status = 200;
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/csv; charset=utf-8';
  ctx.body = body;
}
