import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { ApiError } from '../errors';
import type { Mode } from '../schemas/audit';
import { parseAllowlist } from './ip-allowlist';
import {
  createApiKey,
  keyHolder,
  listApiKeys,
  NotFoundError,
  revokeApiKey,
  storeKeyAllowlist,
  workspaceTier,
} from './repository';
import { featureIncluded, requireFeature } from './tier-gate';

/**
 * The API key actions, one implementation each for the dashboard's keys page and the admin CLI's
 * `key` commands (docs/dashboard.md, "API keys page"): who may touch which key, the IP allowlist's
 * tier gate (team and up) and its parser. Unknown keys are NotFoundError; refusals are ApiError.
 */
export interface KeyServiceDeps {
  db: Db;
  clock: Clock;
}

/**
 * Whose keys an action may touch: a dashboard session's workspace in the page's mode. An operator
 * (the admin CLI) names keys by id and passes no owner.
 */
export interface KeyOwner {
  workspaceId: string;
  mode: Mode;
}

export type KeyListing = Awaited<ReturnType<typeof listApiKeys>>[number];

/** A new key of the workspace and mode; its secret is in this answer only. */
export function createKey(deps: KeyServiceDeps, owner: KeyOwner) {
  return createApiKey(deps.db, { workspaceId: owner.workspaceId, mode: owner.mode, now: deps.clock.now() });
}

/** The workspace's keys, oldest first (never their secrets); of one mode when it is given. */
export async function listKeys(
  deps: Pick<KeyServiceDeps, 'db'>,
  workspaceId: string,
  mode?: Mode,
): Promise<KeyListing[]> {
  const keys = await listApiKeys(deps.db, workspaceId);
  return mode ? keys.filter((key) => key.mode === mode) : keys;
}

/** Revokes a key (the API refuses it once every instance's cache has heard, within seconds). */
export async function revokeKey(deps: KeyServiceDeps, keyId: string, owner?: KeyOwner) {
  await requireKey(deps, keyId, owner);
  return revokeApiKey(deps.db, keyId, deps.clock.now());
}

/**
 * Restricts a key to these addresses, or with none allows any address again. Setting a list is a
 * team-tier feature (clearing one never is: a downgraded account can still undo it); every entry
 * must parse as OUTBOUND_ALLOW_CIDRS's do (src/accounts/ip-allowlist.ts), the first bad one named.
 */
export async function setKeyAllowlist(
  deps: KeyServiceDeps,
  keyId: string,
  cidrs: string[],
  owner?: KeyOwner,
): Promise<{ key_id: string; allowed_cidrs: string[] | null }> {
  const key = await requireKey(deps, keyId, owner);
  const entries = cidrs.map((entry) => entry.trim()).filter(Boolean);
  if (entries.length > 0) requireFeature(key, 'ip_allowlists');
  let allowed: string[] | null = null;
  try {
    allowed = entries.length ? parseAllowlist(entries) : null;
  } catch (err) {
    throw new ApiError('invalid_request', (err as Error).message);
  }
  await storeKeyAllowlist(deps.db, keyId, allowed);
  return { key_id: keyId, allowed_cidrs: allowed };
}

/** Whether the workspace's tier includes IP allowlists: pages offer the editor only then. */
export async function allowlistsIncluded(deps: Pick<KeyServiceDeps, 'db'>, workspaceId: string): Promise<boolean> {
  return featureIncluded({ tier: await workspaceTier(deps.db, workspaceId) }, 'ip_allowlists');
}

/** The key with its account's tier; another workspace's or mode's key is as unknown as a missing one. */
async function requireKey(deps: Pick<KeyServiceDeps, 'db'>, keyId: string, owner: KeyOwner | undefined) {
  const key = await keyHolder(deps.db, keyId);
  if (!key || (owner && (key.workspace_id !== owner.workspaceId || key.mode !== owner.mode)))
    throw new NotFoundError(`key ${keyId} does not exist`);
  return key;
}
