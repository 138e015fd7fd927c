import type { ShareRow } from '../shares/repository';
import { iso } from './iso';

/** A share link as listed: its state, never its URL nor anything of its password but whether it has one. */
export function presentShare(row: ShareRow, now: Date) {
  return {
    share_id: row.id,
    audit_id: row.audit_id,
    expires_at: iso(row.expires_at),
    status: new Date(row.expires_at).getTime() > now.getTime() ? ('active' as const) : ('expired' as const),
    password_protected: row.password_hash !== null,
    created_at: iso(row.created_at),
  };
}

/** The answer to creating a link: the only one that carries its URL. */
export function presentCreatedShare(row: ShareRow, url: string, now: Date) {
  return { ...presentShare(row, now), url };
}

/** An audit's share links as `GET /audits/{audit_id}/shares` answers them. */
export function presentShareList(rows: readonly ShareRow[], now: Date) {
  return { data: rows.map((row) => presentShare(row, now)) };
}
