import type { Clock } from '../clock';
import type { AuditJson } from '../schemas/audit';
import type { AuditRow } from './repository';
import type { CrawlSnapshot, SnapshotPage } from '../analyzers/snapshot';
import type { PagePart } from '../analyzers';
import type { CrawlFacts } from './crawl-facts';
import type { RenderedPageChecks } from '../browser/stage-result';
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

/**
 * A finished crawl: its snapshot, its pages in the snapshot's order (their bodies, or parts observed
 * beforehand), and how long it took.
 */
export interface FinishedCrawl {
  snapshot: CrawlSnapshot;
  parts: AsyncIterable<PagePart>;
  crawlDurationMs: number;
  /** The rendered-DOM checks of every page it rendered with `render: "all"` (none otherwise), in crawl order. */
  renderedChecks?: AsyncIterable<RenderedPageChecks>;
}

/** Live audits: the audit JSON (analyzers + scoring) and crawl facts of a row's domain. */
export interface AuditEngine {
  /** Crawls and analyses in this process. */
  runLive(row: AuditRow, context: AttemptContext & { startedAt: Date; clock: Clock }): Promise<ProducedAudit>;
  /** Analyses a crawl already made (the durable crawl's stored facts). */
  analyze(
    row: AuditRow,
    crawl: FinishedCrawl,
    context: AttemptContext & { startedAt: Date; clock: Clock },
  ): Promise<ProducedAudit>;
}

/** The audit of a row: synthetic for test keys, a real crawl for live ones; the JSON always schema-checked. */
export async function produceAuditJson(
  engine: AuditEngine,
  row: AuditRow,
  clock: Clock,
  attempt: AttemptContext,
  /** A live audit's crawl made already (durable crawl): analysed instead of crawling here. */
  crawled?: () => Promise<FinishedCrawl>,
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
      : crawled
        ? await engine.analyze(row, await crawled(), { ...attempt, startedAt, clock })
        : await engine.runLive(row, { ...attempt, startedAt, clock });
  assertValidAuditJson(produced.audit);
  return produced;
}
