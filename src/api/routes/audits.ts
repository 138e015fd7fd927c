import Router from '@koa/router';
import { listAuditsQuerySchema, triggerAuditBodySchema, type ListAuditsQuery, type TriggerAuditBody } from '../../schemas/api';
import { triggerAudit, type TriggerDeps } from '../../audits/trigger';
import { parseIdempotencyKey } from '../../audits/idempotency';
import type { ReadModel } from '../read-model';
import { listAudits, type AuditRow, type ListFilter } from '../../audits/repository';
import { InvalidDomainError, normalizeDomain } from '../../audits/domain';
import { ApiError } from '../../errors';
import { decodeCursor, encodeCursor } from '../cursor';
import type { ApiContext, ApiState } from '../context';
import { readJsonBody } from '../middleware/json-body';
import { bodyValidator, queryValidator } from '../validation';
import { hasIdShape } from '../../ids';

const validateTrigger = bodyValidator<TriggerAuditBody>(triggerAuditBodySchema);
const validateList = queryValidator<ListAuditsQuery>(listAuditsQuerySchema);

export function auditRoutes(deps: TriggerDeps & { readModel: ReadModel }): Router<ApiState> {
  const router = new Router<ApiState>();

  router.post('/audits', async (ctx) => {
    const body = validateTrigger(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const usage = ctx.state.usage;
    if (!usage) throw new Error('audit routes need an authenticated request');
    const idempotencyKey = parseIdempotencyKey(ctx.get('Idempotency-Key'));
    const result = await triggerAudit(deps, { identity: identity(ctx), usage }, body, idempotencyKey);
    if (result.usage !== usage) deps.readModel.usageChanged(usage.accountId);
    deps.readModel.auditChanged(result.response.audit_id);
    if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.state.usage = result.usage;
    ctx.status = 202;
    ctx.body = result.response;
  });

  router.get('/audits', async (ctx) => {
    const query = validateList({ ...ctx.query });
    const { workspaceId, mode } = identity(ctx);
    const filter: ListFilter = {
      workspaceId,
      mode,
      limit: query.limit ?? 50,
      after: query.cursor ? decodeCursor(query.cursor, 'audit') : undefined,
      status: query.status,
      domain: query.domain ? domainFilter(query.domain) : undefined,
      completedAfter: query.completed_after,
      completedBefore: query.completed_before,
    };
    const { rows, hasMore } = await listAudits(deps.db, filter);
    const last = rows[rows.length - 1];
    ctx.body = {
      data: rows.map((row) => ({
        audit_id: row.id,
        domain: row.domain,
        status: row.status,
        score: row.score,
        completed_at: iso(row.completed_at),
        created_at: iso(row.created_at),
      })),
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor(last) : null,
    };
  });

  router.get('/audits/:auditId', async (ctx) => {
    const row = await requireAudit(ctx, deps);
    if (row.status === 'completed' && row.result_json !== null) {
      // The stored bytes are served as they are: identical to the webhook body.
      ctx.type = 'application/json';
      ctx.body = row.result_json;
      return;
    }
    ctx.body = statusEnvelope(row);
  });

  router.get('/audits/:auditId/findings', async (ctx) => {
    const row = await requireAudit(ctx, deps);
    if (row.status === 'completed' && row.result_json !== null) {
      ctx.body = (JSON.parse(row.result_json) as { findings: unknown[] }).findings;
      return;
    }
    ctx.body = statusEnvelope(row);
  });

  return router;
}

export function identity(ctx: ApiContext) {
  const found = ctx.state.identity;
  if (!found) throw new Error('audit routes need an authenticated request');
  return found;
}

export async function requireAudit(ctx: ApiContext, deps: { readModel: ReadModel }): Promise<AuditRow> {
  const { workspaceId, mode } = identity(ctx);
  const auditId = ctx.params.auditId;
  // An id of another shape names no audit: answered without a query (and without echoing it).
  if (!hasIdShape('audit', auditId)) throw new ApiError('audit_not_found', 'no audit with this id in this workspace');
  const row = await deps.readModel.audit(auditId);
  // Test keys see only test audits, live keys only live ones, each only in their workspace.
  if (!row || row.workspace_id !== workspaceId || row.mode !== mode) throw new ApiError('audit_not_found', `no audit ${auditId} in this workspace`);
  return row;
}

export function statusEnvelope(row: AuditRow) {
  return {
    audit_id: row.id,
    domain: row.domain,
    status: row.status,
    estimated_completion: iso(row.estimated_completion),
    ...(row.status === 'failed'
      ? { attempts: row.attempts, error: { code: row.error_code ?? 'internal_error', message: row.error_message ?? 'the audit failed' } }
      : {}),
  };
}

function domainFilter(value: string): NonNullable<ListFilter['domain']> {
  if (!value.includes('://')) return { host: value.toLowerCase() };
  try {
    return { origin: normalizeDomain(value).origin };
  } catch (err) {
    if (err instanceof InvalidDomainError) throw new ApiError('invalid_request', `query parameter domain is invalid: ${err.message}`);
    throw err;
  }
}

function iso(value: Date | null): string | null {
  return value ? new Date(value).toISOString() : null;
}
