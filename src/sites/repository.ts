import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import type { Mode, Tier } from '../schemas/audit';
import type { RenderMode } from '../schemas/api-audits';
import { newSiteRunId } from '../ids';
import type { SiteSchedule, Weekday } from './cadence';

type Queryable = Db | Knex.Transaction;

export interface SiteRow {
  id: string;
  workspace_id: string;
  account_id: string;
  mode: Mode;
  domain: string;
  schedule: SiteSchedule;
  /** IANA zone its schedule runs in; at, weekday and day_of_month are local to it (null: see siteTiming). */
  time_zone: string;
  at: string | null;
  weekday: Weekday | null;
  day_of_month: number | null;
  tier: Tier | null;
  /** How its runs render pages (`render` of POST /audits); rows from before the column read 'sample'. */
  render: RenderMode;
  paused: boolean;
  /** 'tier_limit' when a downgrade paused it; null when a user did (or it runs). */
  paused_reason: 'tier_limit' | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

export interface Scope {
  workspaceId: string;
  mode: Mode;
}

export interface SiteRunRow {
  id: string;
  site_id: string;
  scheduled_at: Date;
  outcome: 'started' | 'skipped';
  audit_id: string | null;
  skip_reason: string | null;
  skip_message: string | null;
  created_at: Date;
}

type Keyset = { createdAt: string; id: string };

export async function findSite(db: Queryable, scope: Scope, siteId: string): Promise<SiteRow | undefined> {
  return db<SiteRow>('sites').where({ id: siteId, workspace_id: scope.workspaceId, mode: scope.mode }).first();
}

export async function loadSite(db: Queryable, siteId: string): Promise<SiteRow | undefined> {
  return db<SiteRow>('sites').where({ id: siteId }).first();
}

/** The site monitoring this workspace, mode and domain, if any (an audit belongs to it). */
export async function siteOfDomain(db: Queryable, scope: Scope & { domain: string }): Promise<SiteRow | undefined> {
  return db<SiteRow>('sites')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode, domain: scope.domain })
    .first();
}

/** Sites of a workspace and environment, oldest first, keyset-paginated, each with its newest audit. */
export async function listSites(db: Db, scope: Scope, page: { limit: number; after?: Keyset }) {
  const query = db<SiteRow>('sites')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(page.limit + 1);
  if (page.after) query.whereRaw('(created_at, id) > (?::timestamptz, ?)', [page.after.createdAt, page.after.id]);
  const rows = (await query) as SiteRow[];
  const visible = rows.slice(0, page.limit);
  return { rows: await withLastAudits(db, visible), hasMore: rows.length > page.limit };
}

export type SiteWithLastAudit = SiteRow & { last_audit_id: string | null };

/** The newest audit of each site (any status): what `last_audit_id` shows. */
export async function withLastAudits(db: Queryable, sites: SiteRow[]): Promise<SiteWithLastAudit[]> {
  if (sites.length === 0) return [];
  const result = await db.raw(
    `SELECT s.id, (SELECT a.id FROM audits a
                    WHERE a.workspace_id = s.workspace_id AND a.mode = s.mode AND a.domain = s.domain
                    ORDER BY a.created_at DESC, a.id DESC LIMIT 1) AS last_audit_id
       FROM sites s WHERE s.id = ANY(?)`,
    [sites.map((s) => s.id)],
  );
  const last = new Map((result.rows as Array<{ id: string; last_audit_id: string | null }>).map((r) => [r.id, r]));
  return sites.map((site) => ({ ...site, last_audit_id: last.get(site.id)?.last_audit_id ?? null }));
}

/** Sites of an account in one environment, oldest first (the order a downgrade keeps them in). */
export async function accountSites(trx: Queryable, accountId: string, mode: Mode): Promise<SiteRow[]> {
  return trx<SiteRow>('sites')
    .where({ account_id: accountId, mode })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export async function insertSite(trx: Knex.Transaction, row: Omit<SiteRow, 'revision'>): Promise<void> {
  await trx('sites').insert({ ...row, revision: 1 });
}

/** Changes a site and bumps its revision (the Temporal Schedule follows, src/sites/schedule-sync.ts). */
export async function updateSite(
  trx: Knex.Transaction,
  siteId: string,
  patch: Partial<
    Pick<SiteRow, 'schedule' | 'time_zone' | 'at' | 'weekday' | 'day_of_month' | 'render' | 'paused' | 'paused_reason'>
  > & {
    updated_at: Date;
  },
): Promise<SiteRow> {
  const [row] = await trx('sites')
    .where({ id: siteId })
    .update({ ...patch, revision: trx.raw('revision + 1') })
    .returning('*');
  return row as SiteRow;
}

export async function deleteSite(trx: Knex.Transaction, siteId: string): Promise<void> {
  await trx('sites').where({ id: siteId }).delete();
}

/** One firing of a site's schedule; a retried firing finds the row its first try wrote. */
export async function recordRun(
  db: Queryable,
  run: Omit<SiteRunRow, 'id' | 'created_at'> & { created_at: Date },
): Promise<SiteRunRow> {
  await db('site_runs')
    .insert({ id: newSiteRunId(), ...run })
    .onConflict(['site_id', 'scheduled_at'])
    .ignore();
  return (await findRun(db, run.site_id, run.scheduled_at)) as SiteRunRow;
}

export async function findRun(db: Queryable, siteId: string, scheduledAt: Date): Promise<SiteRunRow | undefined> {
  return db<SiteRunRow>('site_runs').where({ site_id: siteId, scheduled_at: scheduledAt }).first();
}

/** A site's runs, newest firing first (cursor over scheduled_at, id). */
export async function listRuns(db: Db, siteId: string, page: { limit: number; after?: Keyset }) {
  const query = db<SiteRunRow>('site_runs')
    .where({ site_id: siteId })
    .orderBy([
      { column: 'scheduled_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.limit + 1);
  if (page.after) query.whereRaw('(scheduled_at, id) < (?::timestamptz, ?)', [page.after.createdAt, page.after.id]);
  const rows = (await query) as SiteRunRow[];
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

export interface HistoryRow {
  id: string;
  completed_at: Date;
  score: number | null;
  grade: string | null;
  categories: unknown;
}

/** Completed audits of the site's workspace, mode and domain, newest first (cursor over completed_at, id). */
export async function listHistory(db: Db, site: SiteRow, page: { limit: number; after?: Keyset }) {
  const query = db('audits')
    .where({ workspace_id: site.workspace_id, mode: site.mode, domain: site.domain, status: 'completed' })
    .whereNotNull('completed_at')
    .orderBy([
      { column: 'completed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.limit + 1)
    .select('id', 'completed_at', 'score', 'grade', db.raw(`(result_json::jsonb) -> 'categories' AS categories`));
  if (page.after) query.whereRaw('(completed_at, id) < (?::timestamptz, ?)', [page.after.createdAt, page.after.id]);
  const rows = (await query) as HistoryRow[];
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
