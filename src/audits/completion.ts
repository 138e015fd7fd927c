import type { Db } from '../db/knex';
import type { AuditJson } from '../schemas/audit';
import { comparisonBasis } from '../monitoring/basis';
import { auditsFinished, pagesCrawled } from '../observability/metrics';
import { storableJson } from '../text/storable';
import { markCompleted, type ProjectionWrite } from './repository';

/**
 * The one step that completes an audit, whichever activity reaches it (the run itself, or the
 * browser stage's completion): the audit JSON stamped with the moment it completes, stored as the
 * bytes every reader and `audit.completed` get, with what the next comparison needs, and counted.
 */
export async function completeAudit(
  db: Db,
  input: { auditId: string; generation?: number; audit: AuditJson; completedAt: Date },
): Promise<{ written: ProjectionWrite; audit: AuditJson }> {
  const audit: AuditJson = { ...input.audit, completed_at: input.completedAt.toISOString() };
  const written = await markCompleted(db, input.auditId, {
    generation: input.generation,
    resultJson: storableJson(audit),
    score: audit.score,
    grade: audit.grade,
    completedAt: input.completedAt,
    comparisonBasis: comparisonBasis(audit),
  });
  if (written === 'written') {
    auditsFinished.inc({ outcome: 'completed', mode: audit.mode });
    if (audit.mode === 'live') pagesCrawled.inc(audit.crawl.pages_crawled);
  }
  return { written, audit };
}
