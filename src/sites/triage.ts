import type { Db } from '../db/knex';
import { ApiError } from '../errors';
import type { SiteRow } from './repository';

export const TRIAGE_STATUSES = ['open', 'ignored', 'accepted'] as const;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

export interface TriageRow {
  site_id: string;
  fingerprint: string;
  status: TriageStatus;
  note: string | null;
  /** 'key:<key_id>' from the API, 'user:<user_id>' from the dashboard. */
  set_by: string;
  updated_at: Date;
}

/**
 * Triage of one of a site's findings (docs/decisions.md, Monitoring → Triage). Only fingerprints a
 * completed audit of the site has reported can be triaged: a typo is `404 finding_not_found`
 * rather than a silent entry that never matches anything. It is read in one place,
 * src/monitoring/site-history.ts (`siteTriage`, `domainTriage`).
 */
export async function setTriage(
  db: Db,
  site: SiteRow,
  input: { fingerprint: string; status: TriageStatus; note: string | null; setBy: string; now: Date },
): Promise<TriageRow> {
  if (!(await siteReported(db, site, input.fingerprint)))
    throw new ApiError(
      'finding_not_found',
      `no completed audit of site ${site.id} reported a finding with fingerprint ${input.fingerprint}`,
    );
  const row: TriageRow = {
    site_id: site.id,
    fingerprint: input.fingerprint,
    status: input.status,
    note: input.note,
    set_by: input.setBy,
    updated_at: input.now,
  };
  await db('site_finding_triage').insert(row).onConflict(['site_id', 'fingerprint']).merge();
  return row;
}

async function siteReported(db: Db, site: SiteRow, fingerprint: string): Promise<boolean> {
  const row = await db('audits')
    .where({ workspace_id: site.workspace_id, mode: site.mode, domain: site.domain, status: 'completed' })
    .whereRaw(`(result_json::jsonb) -> 'findings' @> ?::jsonb`, [JSON.stringify([{ fingerprint }])])
    .first('id');
  return row !== undefined;
}
