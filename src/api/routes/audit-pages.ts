import Router from '@koa/router';
import { pageQuerySchema, type PageQuery } from '../../schemas/api';
import { FINDING_ID_PATTERN, listAuditPagesQuerySchema, type ListAuditPagesQuery } from '../../schemas/api-pages';
import type { Finding } from '../../schemas/audit';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { listAuditPages, listFindingUrls, type PageFilter } from '../../audits/crawl-facts-store';
import { completedAuditJson, presentAuditStatus, presentFindings } from '../../presenters/audits';
import { presentAuditPage, presentFindingUrl } from '../../presenters/crawl-facts';
import { presentPage } from '../../presenters/page';
import { decodePositionCursor, encodePositionCursor, type ListKey } from '../../presenters/position-cursor';
import { ApiError } from '../../errors';
import type { ApiContext, ApiState } from '../context';
import type { ReadModel } from '../read-model';
import { queryValidator } from '../validation';
import { requireAudit } from './audit-lookup';
import { runningEstimateInputs } from '../../audits/estimate';

const validatePagesQuery = queryValidator<ListAuditPagesQuery>(listAuditPagesQuerySchema);
const validatePaging = queryValidator<PageQuery>(pageQuerySchema);
const FINDING_ID = new RegExp(FINDING_ID_PATTERN);

/**
 * Every URL a completed audit's crawl requested, and every URL of one of its findings, a page at a
 * time (docs/decisions.md, "Pages and exports"). Like /findings: the status envelope until the audit
 * is completed.
 */
export function auditPageRoutes(deps: { db: Db; readModel: ReadModel; config: Config }): Router<ApiState> {
  const router = new Router<ApiState>();

  router.get('/audits/:auditId/pages', async (ctx) => {
    const query = validatePagesQuery({ ...ctx.query });
    const filter = pageFilterOf(query);
    const row = await requireAudit(ctx, deps.readModel);
    if (completedAuditJson(row) === null) {
      ctx.body = presentAuditStatus(row, await runningEstimateInputs(deps.db, deps.config.pageBudgets));
      return;
    }
    const list: ListKey = ['pages', row.id];
    const after = query.cursor === undefined ? undefined : decodePositionCursor(query.cursor, list);
    const page = await listAuditPages(deps.db, row.id, { limit: query.limit ?? 50, after, ...filter });
    ctx.body = presentPage(page, presentAuditPage, (last) => encodePositionCursor(list, last.seq));
  });

  router.get('/audits/:auditId/findings/:findingId/urls', async (ctx) => {
    const query = validatePaging({ ...ctx.query });
    const row = await requireAudit(ctx, deps.readModel);
    const findings = presentFindings(row) as Finding[] | null;
    if (findings === null) {
      ctx.body = presentAuditStatus(row, await runningEstimateInputs(deps.db, deps.config.pageBudgets));
      return;
    }
    const findingId = requireFinding(ctx, row.id, findings);
    const list: ListKey = ['finding_urls', row.id, findingId];
    const after = query.cursor === undefined ? undefined : decodePositionCursor(query.cursor, list);
    const page = await listFindingUrls(deps.db, row.id, findingId, { limit: query.limit ?? 50, after });
    ctx.body = presentPage(page, presentFindingUrl, (last) => encodePositionCursor(list, last.position));
  });

  return router;
}

/** The filters of a pages query; depth bounds the wrong way round are `400 invalid_request`. */
function pageFilterOf(query: ListAuditPagesQuery): PageFilter {
  const { min_depth: minDepth, max_depth: maxDepth, status } = query;
  if (minDepth !== undefined && maxDepth !== undefined && minDepth > maxDepth)
    throw new ApiError(
      'invalid_request',
      `query parameter min_depth (${minDepth}) must not be greater than max_depth (${maxDepth})`,
    );
  return {
    status:
      status === undefined
        ? undefined
        : status.endsWith('xx')
          ? { class: Number(status[0]) }
          : { code: Number(status) },
    minDepth,
    maxDepth,
    indexable: query.indexable,
  };
}

/** The finding `:findingId` names in the audit; `404 finding_not_found` otherwise. */
function requireFinding(ctx: ApiContext, auditId: string, findings: readonly Finding[]): string {
  const findingId = ctx.params.findingId;
  if (findings.some((finding) => finding.id === findingId)) return findingId;
  // An id of another shape is not echoed: it may hold anything.
  throw new ApiError(
    'finding_not_found',
    FINDING_ID.test(findingId)
      ? `audit ${auditId} has no finding ${findingId}`
      : 'the audit has no finding with this id',
  );
}
