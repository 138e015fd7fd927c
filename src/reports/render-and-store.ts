import { createHash } from 'node:crypto';
import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { loadAudit } from '../audits/repository';
import type { AuditJson } from '../schemas/audit';
import { loadBranding } from './branding-repository';
import { renderAuditReport } from './pdf';
import type { ReportStorage } from './storage';
import { findReport, reportIsCurrent, type ReportRow } from './stored-reports';

export type RenderOutcome =
  | { outcome: 'rendered' | 'current'; brandingRevision: number; byteSize: number; renderMs: number }
  | { outcome: 'not_completed' };

export interface ReportRenderDeps {
  db: Db;
  clock: Clock;
  storage: ReportStorage;
  /** The REPORT_FALLBACK_FONT setting, if any. */
  fallbackFont?: string;
}

/**
 * Renders the audit's PDF with the workspace's current branding and stores it, unless the stored
 * one is already current (so a repeated or concurrent request renders nothing twice). Test audits
 * give the sample report. Called by the render activity only: never on an API request.
 */
export async function renderAndStoreReport(deps: ReportRenderDeps, auditId: string): Promise<RenderOutcome> {
  const { db, storage } = deps;
  const audit = await loadAudit(db, auditId);
  if (!audit || audit.status !== 'completed' || audit.result_json === null || !audit.completed_at)
    return { outcome: 'not_completed' };
  const { revision, branding } = await loadBranding(db, { workspaceId: audit.workspace_id, mode: audit.mode });
  const existing = await findReport(db, auditId);
  // Current, and its file still there (else render it again).
  if (reportIsCurrent(existing, audit, revision) && (await storage.exists(existing.storage_key))) {
    return {
      outcome: 'current',
      brandingRevision: revision,
      byteSize: existing.byte_size,
      renderMs: existing.render_ms,
    };
  }

  const started = performance.now();
  const json = JSON.parse(audit.result_json) as AuditJson;
  const previous = json.comparison ? await loadAudit(db, json.comparison.previous_audit_id) : undefined;
  const pdf = await renderAuditReport(json, branding, {
    generatedAt: deps.clock.now(),
    sample: audit.mode === 'test',
    fallbackFont: deps.fallbackFont,
    // The previous audit's findings name the fixed ones in "Changes since the previous audit".
    previousFindings: previous?.result_json ? (JSON.parse(previous.result_json) as AuditJson).findings : null,
  });
  const renderMs = Math.round(performance.now() - started);
  const sha256 = createHash('sha256').update(pdf).digest('hex');
  const storageKey = `${audit.workspace_id}/${auditId}/r${revision}-${sha256.slice(0, 16)}.pdf`;
  await storage.put(storageKey, pdf);

  const row = {
    audit_id: auditId,
    branding_revision: revision,
    audit_completed_at: audit.completed_at,
    storage_key: storageKey,
    byte_size: pdf.length,
    sha256,
    render_ms: renderMs,
    rendered_at: deps.clock.now(),
  };
  // A render that lost a race to a newer branding or result must not replace it.
  const replaced = await db.transaction(async (trx) => {
    const before = await trx<ReportRow>('audit_reports').where({ audit_id: auditId }).forUpdate().first();
    const newer =
      before &&
      (before.audit_completed_at.getTime() > audit.completed_at!.getTime() ||
        (before.audit_completed_at.getTime() === audit.completed_at!.getTime() &&
          Number(before.branding_revision) > revision));
    if (newer) return { kept: before, stale: storageKey };
    await trx('audit_reports').insert(row).onConflict('audit_id').merge();
    return { kept: row, stale: before && before.storage_key !== storageKey ? before.storage_key : null };
  });
  if (replaced.stale) await storage.delete(replaced.stale);
  return { outcome: 'rendered', brandingRevision: revision, byteSize: pdf.length, renderMs };
}
