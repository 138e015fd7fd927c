import type { Clock } from '../clock';
import type { AuditJson } from '../schemas/audit';
import type { AuditRow } from './repository';
import { syntheticAudit } from './synthetic';
import { assertValidAuditJson } from './validate-audit';

/** Runs a live audit of a row's domain and returns its audit JSON (crawl + analyzers + scoring). */
export interface AuditEngine {
  runLive(row: AuditRow, context: { startedAt: Date; heartbeat: () => void; clock: Clock }): Promise<AuditJson>;
}

/** The audit JSON of a row: synthetic for test keys, a real crawl for live ones; always schema-checked. */
export async function produceAuditJson(engine: AuditEngine, row: AuditRow, clock: Clock, heartbeat: () => void): Promise<AuditJson> {
  const startedAt = row.started_at ? new Date(row.started_at) : clock.now();
  const audit =
    row.mode === 'test'
      ? syntheticAudit({
          auditId: row.id,
          workspaceId: row.workspace_id,
          domain: row.domain,
          tier: row.tier,
          createdAt: new Date(row.created_at).toISOString(),
          startedAt: startedAt.toISOString(),
          completedAt: clock.now().toISOString(),
        })
      : await engine.runLive(row, { startedAt, heartbeat, clock });
  assertValidAuditJson(audit);
  return audit;
}
