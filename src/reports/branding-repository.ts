import type { Knex } from 'knex';
import { publishChange } from '../db/change-feed';
import type { Db } from '../db/knex';
import type { Mode } from '../schemas/audit';
import { imageFormat, type Branding } from './branding';

/** Branding of one workspace and mode as stored; `branding` null means the neutral look. */
export interface StoredBranding {
  /** 0 until the branding is first set; a new value from one sequence after every change. */
  revision: number;
  branding: Branding | null;
  updatedAt: Date | null;
}

interface BrandingRow {
  workspace_id: string;
  mode: Mode;
  revision: string;
  display_name: string | null;
  primary_color: string | null;
  footer_text: string | null;
  contact_line: string | null;
  logo: Buffer | null;
  logo_type: string | null;
  updated_at: Date;
}

function fromRow(row: BrandingRow | undefined): StoredBranding {
  if (!row) return { revision: 0, branding: null, updatedAt: null };
  const revision = Number(row.revision);
  if (row.display_name === null || row.primary_color === null)
    return { revision, branding: null, updatedAt: row.updated_at };
  const branding: Branding = { displayName: row.display_name, primaryColor: row.primary_color };
  if (row.logo) branding.logo = row.logo;
  if (row.footer_text) branding.footerText = row.footer_text;
  if (row.contact_line) branding.contactLine = row.contact_line;
  return { revision, branding, updatedAt: row.updated_at };
}

export async function loadBranding(
  db: Db | Knex.Transaction,
  scope: { workspaceId: string; mode: Mode },
): Promise<StoredBranding> {
  const row = await db<BrandingRow>('workspace_branding')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode })
    .first();
  return fromRow(row);
}

/** Only the revision: what the report endpoint compares a stored report against. */
export async function brandingRevision(db: Db, scope: { workspaceId: string; mode: Mode }): Promise<number> {
  const row = await db('workspace_branding')
    .where({ workspace_id: scope.workspaceId, mode: scope.mode })
    .first('revision');
  return row ? Number(row.revision) : 0;
}

/**
 * Replaces the branding (`null` clears it back to the neutral look) and takes a new revision, so
 * reports rendered before are re-rendered when next requested. `branding` must be validated.
 */
export async function saveBranding(
  db: Db,
  scope: { workspaceId: string; mode: Mode },
  branding: Branding | null,
  now: Date,
): Promise<StoredBranding> {
  const values = {
    display_name: branding?.displayName ?? null,
    primary_color: branding?.primaryColor ?? null,
    footer_text: branding?.footerText ?? null,
    contact_line: branding?.contactLine ?? null,
    logo: branding?.logo ?? null,
    logo_type: branding?.logo ? `image/${imageFormat(branding.logo)}` : null,
    updated_at: now,
  };
  const [row] = await db('workspace_branding')
    .insert({
      workspace_id: scope.workspaceId,
      mode: scope.mode,
      revision: db.raw("nextval('branding_revision_seq')"),
      ...values,
    })
    .onConflict(['workspace_id', 'mode'])
    .merge({ ...values, revision: db.raw("nextval('branding_revision_seq')") })
    .returning('*');
  // Share links show the branding: what API instances keep of the workspace's links goes (src/shares/openings.ts).
  await publishChange(db, { kind: 'branding', id: scope.workspaceId });
  return fromRow(row as BrandingRow);
}
