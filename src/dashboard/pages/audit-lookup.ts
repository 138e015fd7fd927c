import { loadAudit, loadAuditOutline, type AuditOutline, type AuditRow } from '../../audits/repository';
import type { Db } from '../../db/knex';
import { hasIdShape } from '../../ids';
import { renderStatus } from '../render';
import { signedIn, type DashboardContext } from '../state';

/** The audit `:auditId` names if it belongs to this workspace and this mode. */
export async function auditInView(c: DashboardContext, deps: { db: Db }): Promise<AuditRow | undefined> {
  const auditId = c.params.auditId ?? '';
  if (!hasIdShape('audit', auditId)) return undefined;
  return inView(c, await loadAudit(deps.db, auditId));
}

/** The same audit without its result: for the pages that read only its crawl's facts. */
export async function auditOutlineInView(c: DashboardContext, deps: { db: Db }): Promise<AuditOutline | undefined> {
  const auditId = c.params.auditId ?? '';
  if (!hasIdShape('audit', auditId)) return undefined;
  return inView(c, await loadAuditOutline(deps.db, auditId));
}

function inView<Row extends AuditOutline>(c: DashboardContext, row: Row | undefined): Row | undefined {
  const me = signedIn(c);
  return row && row.workspace_id === me.workspace.id && row.mode === c.state.mode ? row : undefined;
}

export function auditNotFound(c: DashboardContext): void {
  renderStatus(c, 404, 'Audit not found', 'There is no such audit in this workspace and mode.');
}
