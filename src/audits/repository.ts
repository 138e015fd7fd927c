import type { Knex } from 'knex';
import { storableJson, storableText } from '../text/storable';
import type { Db } from '../db/knex';
import type { Mode, Tier } from '../schemas/audit';
import type { RenderMode } from '../schemas/api-audits';
import type { AuditFailureCode, AuditStatus, ProjectionRun } from '../../workflows/contracts';

export interface AuditRow {
  id: string;
  workspace_id: string;
  account_id: string;
  mode: Mode;
  domain: string;
  /** The site the first-free rule is keyed on (src/registrable-domain.ts); null on rows not written by a trigger. */
  site_key: string | null;
  tier: Tier;
  /**
   * Which pages are rendered in the browser: the sample (the column's default), or every crawled page
   * (`render: "all"`). Rows made outside the database (tests, benches) may leave it out: the sample.
   */
  render?: RenderMode;
  status: AuditStatus;
  score: number | null;
  grade: string | null;
  charged: boolean;
  webhook_url: string | null;
  attempts: number;
  error_code: AuditFailureCode | null;
  error_message: string | null;
  result_json: string | null;
  estimated_completion: Date | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  failed_at: Date | null;
  /** Pages crawled so far by the running attempt (src/audits/progress.ts); null before the crawl reports. */
  pages_crawled: number | null;
  /** Triggers of this audit after its first (a test audit re-run in place): the run allowed to write it. */
  run_generation: number;
}

export async function loadAudit(db: Db, auditId: string): Promise<AuditRow | undefined> {
  return db<AuditRow>('audits').where({ id: auditId }).first();
}

/** An audit's row without its result: for pages that read only its crawl's facts (the JSON of a large crawl is megabytes). */
export type AuditOutline = Pick<
  AuditRow,
  'id' | 'workspace_id' | 'mode' | 'domain' | 'status' | 'score' | 'grade' | 'completed_at'
>;

export async function loadAuditOutline(db: Db, auditId: string): Promise<AuditOutline | undefined> {
  return db<AuditRow>('audits')
    .where({ id: auditId })
    .first('id', 'workspace_id', 'mode', 'domain', 'status', 'score', 'grade', 'completed_at');
}

/** What a report's file name is made of; undefined once the audit is pruned. */
export async function loadAuditHeadline(
  db: Db,
  auditId: string,
): Promise<Pick<AuditRow, 'domain' | 'completed_at'> | undefined> {
  return db<AuditRow>('audits').where({ id: auditId }).first('domain', 'completed_at');
}

export interface ListFilter {
  workspaceId: string;
  mode: Mode;
  limit: number;
  after?: { createdAt: string; id: string };
  status?: AuditStatus;
  domain?: { origin: string } | { host: string };
  completedAfter?: string;
  completedBefore?: string;
}

/** Newest first, keyset-paginated on (created_at, id) so pages stay stable while audits are added. */
export async function listAudits(db: Db, filter: ListFilter): Promise<{ rows: AuditRow[]; hasMore: boolean }> {
  const query = db<AuditRow>('audits')
    .where({ workspace_id: filter.workspaceId, mode: filter.mode })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(filter.limit + 1)
    .select('id', 'domain', 'status', 'score', 'completed_at', 'created_at');
  if (filter.after) {
    const { createdAt, id } = filter.after;
    query.whereRaw('(created_at, id) < (?::timestamptz, ?)', [createdAt, id]);
  }
  if (filter.status) query.where('status', filter.status);
  if (filter.domain && 'origin' in filter.domain) query.where('domain', filter.domain.origin);
  if (filter.domain && 'host' in filter.domain) {
    // A bare host matches the site on either protocol and any port.
    query.whereRaw(`split_part(split_part(domain, '://', 2), ':', 1) = ?`, [filter.domain.host]);
  }
  if (filter.completedAfter) query.where('completed_at', '>', filter.completedAfter);
  if (filter.completedBefore) query.where('completed_at', '<', filter.completedBefore);
  const rows = (await query) as AuditRow[];
  return { rows: rows.slice(0, filter.limit), hasMore: rows.length > filter.limit };
}

export async function insertAudit(
  trx: Knex | Knex.Transaction,
  row: Omit<
    AuditRow,
    | 'score'
    | 'grade'
    | 'attempts'
    | 'error_code'
    | 'error_message'
    | 'result_json'
    | 'started_at'
    | 'completed_at'
    | 'failed_at'
    | 'pages_crawled'
  >,
): Promise<void> {
  await trx('audits').insert({ ...row, updated_at: row.created_at });
}

/**
 * Projection writes from the workflow's activities. A write names the run making it (the audit's
 * run_generation it was started for): once the audit is triggered again (a test audit re-run in
 * place), a write of the replaced run, whose activity may still be under way, is dropped.
 */
export type ProjectionWrite = 'written' | 'missing' | 'superseded';

async function writeProjection(
  db: Db,
  auditId: string,
  run: ProjectionRun,
  changes: Record<string, unknown>,
): Promise<ProjectionWrite> {
  const query = db('audits').where({ id: auditId });
  if (run.generation !== undefined) query.where({ run_generation: run.generation });
  const updated = await query.update(changes);
  if (updated > 0) return 'written';
  const row = await db('audits').where({ id: auditId }).first('id');
  return row ? 'superseded' : 'missing';
}

export async function markRunning(
  db: Db,
  auditId: string,
  input: ProjectionRun & { attempt: number; at: Date },
): Promise<ProjectionWrite> {
  return writeProjection(db, auditId, input, {
    status: 'running',
    attempts: input.attempt,
    pages_crawled: null,
    started_at: db.raw('coalesce(started_at, ?)', [input.at]),
    error_code: null,
    error_message: null,
    updated_at: input.at,
  });
}

export async function markWaitingForRetry(
  db: Db,
  auditId: string,
  input: ProjectionRun & {
    attempt: number;
    nextAttemptAt: Date;
    error: { code: AuditFailureCode; message: string };
    at: Date;
  },
): Promise<ProjectionWrite> {
  return writeProjection(db, auditId, input, {
    status: 'queued',
    attempts: input.attempt,
    estimated_completion: input.nextAttemptAt,
    error_code: input.error.code,
    error_message: storableText(input.error.message),
    updated_at: input.at,
  });
}

export async function markCompleted(
  db: Db,
  auditId: string,
  input: ProjectionRun & {
    resultJson: string;
    score: number;
    grade: string;
    completedAt: Date;
    comparisonBasis?: unknown;
  },
): Promise<ProjectionWrite> {
  return writeProjection(db, auditId, input, {
    status: 'completed',
    result_json: input.resultJson,
    // What the next audit of the site compares with (src/monitoring/basis.ts).
    comparison_basis: input.comparisonBasis === undefined ? null : storableJson(input.comparisonBasis),
    score: input.score,
    grade: input.grade,
    completed_at: input.completedAt,
    error_code: null,
    error_message: null,
    updated_at: input.completedAt,
  });
}

export async function markFailed(
  db: Db,
  auditId: string,
  input: ProjectionRun & { attempts: number; error: { code: AuditFailureCode; message: string }; failedAt: Date },
): Promise<ProjectionWrite> {
  return writeProjection(db, auditId, input, {
    status: 'failed',
    attempts: input.attempts,
    error_code: input.error.code,
    error_message: storableText(input.error.message),
    failed_at: input.failedAt,
    updated_at: input.failedAt,
  });
}
