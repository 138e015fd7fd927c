import type { Clock } from '../clock';
import type { AuditJson } from '../schemas/audit';
import type { AuditRow } from './repository';
import type { SnapshotPage } from '../analyzers/snapshot';
import type { CrawlFacts } from './crawl-facts';
import { syntheticAudit } from './synthetic';
import { assertValidAuditJson } from './validate-audit';

/** How one attempt runs: progress reports (activity heartbeats), cancellation, and whether it is the last. */
export interface AttemptContext {
  heartbeat: (progress?: unknown) => void;
  signal: AbortSignal;
  /** On the last attempt an unavailable data provider no longer fails the audit: its analyzers show `error`. */
  finalAttempt: boolean;
  /** Told the crawled pages as soon as the crawl ends, before the analysis (the browser stage samples them). */
  onCrawled?: (pages: readonly SnapshotPage[]) => Promise<void>;
}

/** An audit JSON and the facts stored beside it (null: derived from the JSON, as for test audits). */
export interface ProducedAudit {
  audit: AuditJson;
  facts: CrawlFacts | null;
}

/** Runs a live audit of a row's domain: its audit JSON (crawl + analyzers + scoring) and crawl facts. */
export interface AuditEngine {
  runLive(row: AuditRow, context: AttemptContext & { startedAt: Date; clock: Clock }): Promise<ProducedAudit>;
}

/** The audit of a row: synthetic for test keys, a real crawl for live ones; the JSON always schema-checked. */
export async function produceAuditJson(
  engine: AuditEngine,
  row: AuditRow,
  clock: Clock,
  attempt: AttemptContext,
): Promise<ProducedAudit> {
  const startedAt = row.started_at ? new Date(row.started_at) : clock.now();
  const produced: ProducedAudit =
    row.mode === 'test'
      ? {
          facts: null,
          audit: syntheticAudit({
            auditId: row.id,
            workspaceId: row.workspace_id,
            domain: row.domain,
            tier: row.tier,
            createdAt: new Date(row.created_at).toISOString(),
            startedAt: startedAt.toISOString(),
            completedAt: clock.now().toISOString(),
          }),
        }
      : await engine.runLive(row, { ...attempt, startedAt, clock });
  assertValidAuditJson(produced.audit);
  return produced;
}
