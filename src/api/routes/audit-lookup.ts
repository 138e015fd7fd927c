import type { AuditRow } from '../../audits/repository';
import { hasIdShape } from '../../ids';
import { ApiError } from '../../errors';
import { caller, type ApiContext } from '../context';
import type { ReadModel } from '../read-model';

/** The audit `:auditId` names, as the caller may see it; 404 audit_not_found otherwise. */
export async function requireAudit(ctx: ApiContext, readModel: ReadModel): Promise<AuditRow> {
  const auditId = ctx.params.auditId;
  const row = await readModel.auditIn(caller(ctx).scope, auditId);
  // An id of another shape is not echoed: it may hold anything.
  if (!row)
    throw new ApiError(
      'audit_not_found',
      hasIdShape('audit', auditId)
        ? `no audit ${auditId} in this workspace`
        : 'no audit with this id in this workspace',
    );
  return row;
}
