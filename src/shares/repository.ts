import type { AuditRow } from '../audits/repository';
import { publishChange } from '../db/change-feed';
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

/**
 * What a visitor's request needs of a link, read in one statement per request: the row's few columns
 * that decide whether it opens, its audit's headline, its owner's tier, and the revision of the
 * branding it shows (0 for none), which names the rendering a cache may hold.
 */
export interface OpenedShare {
  share: Pick<ShareRow, 'id' | 'workspace_id' | 'mode' | 'audit_id' | 'password_hash' | 'expires_at' | 'revoked_at'>;
  audit: {
    id: string;
    domain: string;
    status: AuditRow['status'];
    score: number | null;
    grade: string | null;
    completed_at: Date | null;
  };
  ownerAccountId: string;
  ownerTier: Tier;
  brandingRevision: number;
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
  // What API instances keep of the link goes (src/shares/openings.ts).
  if (updated > 0) await publishChange(db, { kind: 'share', id: shareId });
  return updated > 0;
}

/**
 * A visit runs this unless the link is kept in memory (src/shares/openings.ts): one fixed statement
 * (no query building per request) on the token_hash index, the columns it needs only.
 */
const OPEN_SHARE_SQL = `
  SELECT s.id, s.workspace_id, s.mode, s.audit_id, s.password_hash, s.expires_at, s.revoked_at,
         a.domain, a.status, a.score, a.grade, a.completed_at, a.account_id, acc.tier, b.revision AS branding_revision
  FROM audit_shares s
  JOIN audits a ON a.id = s.audit_id
  JOIN accounts acc ON acc.id = a.account_id
  LEFT JOIN workspace_branding b ON b.workspace_id = s.workspace_id AND b.mode = s.mode
  WHERE s.token_hash = ?`;

/** The link whose token has this digest (revoked ones too: the caller closes them), with its audit and owner. */
export async function findShareByTokenHash(db: Db, tokenHash: Buffer): Promise<OpenedShare | undefined> {
  const row = (await db.raw(OPEN_SHARE_SQL, [tokenHash])).rows[0];
  if (!row) return undefined;
  return {
    share: {
      id: row.id,
      workspace_id: row.workspace_id,
      mode: row.mode,
      audit_id: row.audit_id,
      password_hash: row.password_hash,
      expires_at: row.expires_at,
      revoked_at: row.revoked_at,
    },
    audit: {
      id: row.audit_id,
      domain: row.domain,
      status: row.status,
      score: row.score,
      grade: row.grade,
      completed_at: row.completed_at,
    },
    ownerAccountId: row.account_id,
    ownerTier: row.tier,
    brandingRevision: row.branding_revision === null ? 0 : Number(row.branding_revision),
  };
}

/** The stored audit JSON of a completed audit (the page's content); null while it has none. */
export async function loadSharedResult(db: Db, auditId: string): Promise<string | null> {
  const row = await db('audits').where({ id: auditId, status: 'completed' }).first('result_json');
  return row?.result_json ?? null;
}
