import Router from '@koa/router';
import {
  listAuditsQuerySchema,
  triggerAuditBodySchema,
  type ListAuditsQuery,
  type TriggerAuditBody,
} from '../../schemas/api';
import { triggerAudit, type TriggerDeps } from '../../audits/trigger';
import { parseIdempotencyKey } from '../../audits/idempotency';
import type { ReadModel } from '../read-model';
import { listAudits, type ListFilter } from '../../audits/repository';
import { InvalidDomainError, normalizeDomain } from '../../audits/domain';
import { completedAuditJson, presentAuditStatus, presentAuditSummary, presentFindings } from '../../presenters/audits';
import { presentPage } from '../../presenters/page';
import { ApiError } from '../../errors';
import { decodeCursor, encodeCursor } from '../../presenters/cursor';
import { caller, type ApiState } from '../context';
import { readJsonBody } from '../middleware/json-body';
import { bodyValidator, queryValidator } from '../validation';
import { requireAudit } from './audit-lookup';
import { runningEstimateInputs } from '../../audits/estimate';

const validateTrigger = bodyValidator<TriggerAuditBody>(triggerAuditBodySchema);
const validateList = queryValidator<ListAuditsQuery>(listAuditsQuerySchema);

export function auditRoutes(deps: TriggerDeps & { readModel: ReadModel }): Router<ApiState> {
  const router = new Router<ApiState>();

  router.post('/audits', async (ctx) => {
    const body = validateTrigger(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const { identity, usage } = caller(ctx);
    const idempotencyKey = parseIdempotencyKey(ctx.get('Idempotency-Key'));
    const result = await triggerAudit(deps, { identity, usage }, body, idempotencyKey);
    if (result.usage !== usage) deps.readModel.usageChanged(usage.accountId);
    deps.readModel.auditChanged(result.response.audit_id);
    if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.state.usage = result.usage;
    ctx.status = 202;
    ctx.body = result.response;
  });

  router.get('/audits', async (ctx) => {
    const query = validateList({ ...ctx.query });
    const filter: ListFilter = {
      ...caller(ctx).scope,
      limit: query.limit ?? 50,
      after: query.cursor ? decodeCursor(query.cursor, 'audit') : undefined,
      status: query.status,
      domain: query.domain ? domainFilter(query.domain) : undefined,
      completedAfter: query.completed_after,
      completedBefore: query.completed_before,
    };
    ctx.body = presentPage(await listAudits(deps.db, filter), presentAuditSummary, encodeCursor);
  });

  router.get('/audits/:auditId', async (ctx) => {
    const row = await requireAudit(ctx, deps.readModel);
    const stored = completedAuditJson(row);
    if (stored === null) {
      ctx.body = presentAuditStatus(row, await runningEstimateInputs(deps.db, deps.config.pageBudgets));
      return;
    }
    // The stored bytes are served as they are: identical to the webhook body.
    ctx.type = 'application/json';
    ctx.body = stored;
  });

  router.get('/audits/:auditId/findings', async (ctx) => {
    const row = await requireAudit(ctx, deps.readModel);
    const findings = presentFindings(row);
    ctx.body =
      findings === null
        ? presentAuditStatus(row, await runningEstimateInputs(deps.db, deps.config.pageBudgets))
        : findings;
  });

  return router;
}

function domainFilter(value: string): NonNullable<ListFilter['domain']> {
  if (!value.includes('://')) return { host: value.toLowerCase() };
  try {
    return { origin: normalizeDomain(value).origin };
  } catch (err) {
    if (err instanceof InvalidDomainError)
      throw new ApiError('invalid_request', `query parameter domain is invalid: ${err.message}`);
    throw err;
  }
}
