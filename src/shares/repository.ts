import type { AuditRow } from '../audits/repository';
import type { Db } from '../db/knex';
import type { Mode, Tier } from '../schemas/audit';

/** A share link as stored: never its token (only the token's digest) nor its password (only a hash). */
export interface ShareRow {
  id: string;
  workspace_id: string;
  mode: Mode;
  audit_id: string;
  token_hash: Buffer;
  password_hash: string | null;
  expires_at: Date;
  created_at: Date;
  revoked_at: Date | null;
}

/** What a visitor's request needs of a link: the row, its audit's headline and its owner's tier. */
export interface OpenedShare {
  share: ShareRow;
  audit: {
    id: string;
    domain: string;
    mode: Mode;
    status: AuditRow['status'];
    score: number | null;
    grade: string | null;
    completed_at: Date | null;
  };
  ownerTier: Tier;
}

export async function insertShare(db: Db, row: ShareRow): Promise<void> {
  await db('audit_shares').insert(row);
}

/** The links of one audit in a scope, newest first; revoked ones are gone for good and not listed. */
export async function listAuditShares(
  db: Db,
  scope: { workspaceId: string; mode: Mode },
  auditId: string,
): Promise<ShareRow[]> {
  return db<ShareRow>('audit_shares')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode, audit_id: auditId })
    .whereNull('revoked_at')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

/** Revokes a link of the scope; false when there is none to revoke (unknown, another scope's, or revoked already). */
export async function markShareRevoked(
  db: Db,
  scope: { workspaceId: string; mode: Mode },
  shareId: string,
  now: Date,
): Promise<boolean> {
  const updated = await db('audit_shares')
    .where({ id: shareId, workspace_id: scope.workspaceId, mode: scope.mode })
    .whereNull('revoked_at')
    .update({ revoked_at: now });
  return updated > 0;
}

/** The unrevoked link whose token has this digest, with its audit and owner; undefined when none. */
export async function findShareByTokenHash(db: Db, tokenHash: Buffer): Promise<OpenedShare | undefined> {
  const row = await db('audit_shares as s')
    .join('audits as a', 'a.id', 's.audit_id')
    .join('accounts as acc', 'acc.id', 'a.account_id')
    .where('s.token_hash', tokenHash)
    .whereNull('s.revoked_at')
    .first(
      's.*',
      'a.domain as audit_domain',
      'a.mode as audit_mode',
      'a.status as audit_status',
      'a.score as audit_score',
      'a.grade as audit_grade',
      'a.completed_at as audit_completed_at',
      'acc.tier as owner_tier',
    );
  if (!row) return undefined;
  const { audit_domain, audit_mode, audit_status, audit_score, audit_grade, audit_completed_at, owner_tier, ...share } =
    row;
  return {
    share: share as ShareRow,
    audit: {
      id: share.audit_id,
      domain: audit_domain,
      mode: audit_mode,
      status: audit_status,
      score: audit_score,
      grade: audit_grade,
      completed_at: audit_completed_at,
    },
    ownerTier: owner_tier,
  };
}

/** The stored audit JSON of a completed audit (the page's content); null while it has none. */
export async function loadSharedResult(db: Db, auditId: string): Promise<string | null> {
  const row = await db('audits').where({ id: auditId, status: 'completed' }).first('result_json');
  return row?.result_json ?? null;
}
