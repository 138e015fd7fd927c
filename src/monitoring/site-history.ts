import type { Db } from '../db/knex';
import type { Grade, Mode, Severity } from '../schemas/audit';
import type { ComparisonBasis } from './basis';
import type { Triage } from './comparison';
import { findingFingerprint } from './fingerprint';

/**
 * What a site's dashboard page shows (docs/decisions.md, Monitoring): its recent audits with their
 * comparison bases (kilobytes each, not the audit JSON), the latest changes and a history per
 * fingerprint, and the site's triage. Reads only; triage is written by src/sites/triage.ts.
 */

export interface SiteKey {
  id: string;
  workspace_id: string;
  mode: Mode;
  domain: string;
}

export interface SiteAuditPoint {
  auditId: string;
  completedAt: Date;
  score: number;
  grade: Grade;
  /** Null for audits stored before comparison bases: they count in the chart, not in the history. */
  basis: ComparisonBasis | null;
}

/** How many of a site's latest audits its page charts and tracks findings over. */
export const SITE_PAGE_AUDITS = 30;

/** The site's latest completed audits, newest first (audits_site_history_idx). */
export async function siteAuditPoints(db: Db, site: SiteKey, limit = SITE_PAGE_AUDITS): Promise<SiteAuditPoint[]> {
  return auditPoints(siteAudits(db, site).limit(limit));
}

/** How many of a site's latest audits its page offers for a comparison. */
export const SITE_COMPARE_AUDITS = 100;

/** One completed audit of the site as the comparison form lists it (no basis: a list of a hundred stays small). */
export interface SiteAuditChoice {
  auditId: string;
  completedAt: Date;
  score: number;
}

/** The site's latest completed audits, newest first, without their bases (audits_site_history_idx). */
export async function siteAuditChoices(db: Db, site: SiteKey, limit = SITE_COMPARE_AUDITS): Promise<SiteAuditChoice[]> {
  const rows = (await siteAudits(db, site).limit(limit).select('id', 'completed_at', 'score')) as Array<{
    id: string;
    completed_at: Date;
    score: number;
  }>;
  return rows.map((r) => ({ auditId: r.id, completedAt: r.completed_at, score: r.score }));
}

/** Those of `auditIds` that are completed audits of the site, with their bases, newest first. */
export async function siteAuditPointsById(
  db: Db,
  site: SiteKey,
  auditIds: readonly string[],
): Promise<SiteAuditPoint[]> {
  return auditPoints(siteAudits(db, site).whereIn('id', auditIds));
}

/** The points of the audits `query` (of siteAudits) selects, in its order: the one read of both lists above. */
async function auditPoints(query: ReturnType<typeof siteAudits>): Promise<SiteAuditPoint[]> {
  const rows = (await query.select('id', 'completed_at', 'score', 'grade', 'comparison_basis')) as Array<{
    id: string;
    completed_at: Date;
    score: number;
    grade: Grade;
    comparison_basis: ComparisonBasis | null;
  }>;
  return rows.map((r) => ({
    auditId: r.id,
    completedAt: r.completed_at,
    score: r.score,
    grade: r.grade,
    basis: r.comparison_basis,
  }));
}

/** The site's completed audits, newest first: the order audits_site_history_idx serves. */
function siteAudits(db: Db, site: SiteKey) {
  return db('audits')
    .where({ workspace_id: site.workspace_id, mode: site.mode, domain: site.domain, status: 'completed' })
    .orderBy([
      { column: 'completed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
}

/**
 * Triage is read here and nowhere else (src/sites/triage.ts writes it): a site's own, by fingerprint,
 * for its pages, and the one an audit of a workspace, mode and domain gets when it is stored.
 */
export async function siteTriage(db: Db, siteId: string): Promise<Map<string, Triage>> {
  return triageMap(db('site_finding_triage as t').where({ 't.site_id': siteId }));
}

/** The triage of the site monitoring this workspace, mode and domain; empty when no site does (docs/decisions.md). */
export async function domainTriage(
  db: Db,
  scope: { workspaceId: string; mode: Mode; domain: string },
): Promise<Map<string, Triage>> {
  return triageMap(
    db('site_finding_triage as t')
      .join('sites as s', 's.id', 't.site_id')
      .where({ 's.workspace_id': scope.workspaceId, 's.mode': scope.mode, 's.domain': scope.domain }),
  );
}

async function triageMap(query: ReturnType<Db>): Promise<Map<string, Triage>> {
  const rows = (await query.select('t.fingerprint', 't.status', 't.note')) as Array<{ fingerprint: string } & Triage>;
  return new Map(rows.map((r) => [r.fingerprint, { status: r.status, note: r.note }]));
}

export interface FingerprintHistory {
  fingerprint: string;
  analyzer: string;
  severity: Severity;
  /** Audits (of `points`, newest first) whose findings held this fingerprint. */
  seenIn: string[];
  /** Whether the newest audit holds it. */
  current: boolean;
}

/** Every fingerprint the audits hold, with the audits it appeared in: current ones first, then by audits seen. */
export function fingerprintHistories(points: readonly SiteAuditPoint[]): FingerprintHistory[] {
  const byFp = new Map<string, FingerprintHistory>();
  for (const point of points) {
    for (const f of point.basis?.findings ?? []) {
      const fp = f.fingerprint ?? findingFingerprint(f.analyzer);
      let h = byFp.get(fp);
      if (!h)
        byFp.set(fp, (h = { fingerprint: fp, analyzer: f.analyzer, severity: f.severity, seenIn: [], current: false }));
      if (!h.seenIn.includes(point.auditId)) h.seenIn.push(point.auditId);
      if (point === points[0]) h.current = true;
    }
  }
  return [...byFp.values()].sort((a, b) => Number(b.current) - Number(a.current) || b.seenIn.length - a.seenIn.length);
}
