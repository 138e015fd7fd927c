import type { Db } from '../db/knex';
import { publishChange } from '../db/change-feed';
import { newAccountId, newKeyId, newWorkspaceId } from '../ids';
import type { Mode, Tier } from '../schemas/audit';
import { displayPrefix, generateApiKey, hashApiKey } from './keys';
import { TIER_RULES } from './tiers';

export interface AccountRow {
  id: string;
  tier: Tier;
  custom_quota: number | null;
  usage_reset_at: Date | null;
}

export interface KeyIdentity {
  keyId: string;
  workspaceId: string;
  accountId: string;
  mode: Mode;
  revoked: boolean;
  allowedCidrs: string[] | null;
}

export async function createAccount(
  db: Db,
  input: { tier: Tier; customQuota?: number | null; workspaceName?: string; now: Date },
): Promise<{ account_id: string; workspace_id: string; tier: Tier }> {
  const accountId = newAccountId();
  const workspaceId = newWorkspaceId();
  await db.transaction(async (trx) => {
    await trx('accounts').insert({
      id: accountId,
      tier: input.tier,
      custom_quota: input.customQuota ?? null,
      created_at: input.now,
      updated_at: input.now,
    });
    await trx('workspaces').insert({
      id: workspaceId,
      account_id: accountId,
      name: input.workspaceName ?? 'Default workspace',
      created_at: input.now,
    });
  });
  return { account_id: accountId, workspace_id: workspaceId, tier: input.tier };
}

export async function createApiKey(
  db: Db,
  input: { workspaceId: string; mode: Mode; now: Date },
): Promise<{ key_id: string; key: string; prefix: string; mode: Mode; workspace_id: string; created_at: string }> {
  const workspace = await db('workspaces').where({ id: input.workspaceId }).first('id');
  if (!workspace) throw new NotFoundError(`workspace ${input.workspaceId} does not exist`);
  const key = generateApiKey(input.mode);
  const keyId = newKeyId();
  await db('api_keys').insert({
    id: keyId,
    workspace_id: input.workspaceId,
    mode: input.mode,
    prefix: displayPrefix(key),
    secret_hash: hashApiKey(key),
    created_at: input.now,
  });
  // Instances may hold a cached "unknown key" answer for this secret.
  await publishChange(db, { kind: 'key', id: keyId });
  return {
    key_id: keyId,
    key,
    prefix: displayPrefix(key),
    mode: input.mode,
    workspace_id: input.workspaceId,
    created_at: input.now.toISOString(),
  };
}

export async function revokeApiKey(db: Db, keyId: string, now: Date): Promise<{ key_id: string; revoked_at: string }> {
  const [row] = await db('api_keys')
    .where({ id: keyId })
    .update({ revoked_at: db.raw('coalesce(revoked_at, ?)', [now]) })
    .returning(['id', 'revoked_at']);
  if (!row) throw new NotFoundError(`key ${keyId} does not exist`);
  await publishChange(db, { kind: 'key', id: keyId });
  return { key_id: row.id, revoked_at: new Date(row.revoked_at).toISOString() };
}

export async function listApiKeys(db: Db, workspaceId: string) {
  const rows = await db('api_keys')
    .where({ workspace_id: workspaceId })
    .orderBy('created_at', 'asc')
    .select('id', 'prefix', 'mode', 'created_at', 'last_used_at', 'revoked_at', 'allowed_cidrs');
  return rows.map((row) => ({
    key_id: row.id as string,
    prefix: row.prefix as string,
    mode: row.mode as Mode,
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    allowed_cidrs: (row.allowed_cidrs as string[] | null) ?? null,
  }));
}

export async function findKeyByHash(db: Db, secretHash: string): Promise<KeyIdentity | null> {
  const row = await db('api_keys as k')
    .join('workspaces as w', 'w.id', 'k.workspace_id')
    .where('k.secret_hash', secretHash)
    .first('k.id', 'k.workspace_id', 'w.account_id', 'k.mode', 'k.revoked_at', 'k.allowed_cidrs');
  if (!row) return null;
  return {
    keyId: row.id,
    workspaceId: row.workspace_id,
    accountId: row.account_id,
    mode: row.mode,
    revoked: row.revoked_at !== null,
    allowedCidrs: row.allowed_cidrs ?? null,
  };
}

/**
 * Changes an account's tier at once. An upgrade resets the period's used count to zero
 * (usage_reset_at); a downgrade keeps what was used, so remaining = max(0, new limit − used).
 */
export async function setAccountTier(
  db: Db,
  input: { accountId: string; tier: Tier; customQuota?: number | null; now: Date },
): Promise<{ account_id: string; tier: Tier; previous_tier: Tier; change: 'upgrade' | 'downgrade' | 'none' }> {
  return db.transaction(async (trx) => {
    const account = (await trx('accounts').where({ id: input.accountId }).forUpdate().first()) as
      AccountRow | undefined;
    if (!account) throw new NotFoundError(`account ${input.accountId} does not exist`);
    const before = TIER_RULES[account.tier].rank;
    const after = TIER_RULES[input.tier].rank;
    const change = after > before ? 'upgrade' : after < before ? 'downgrade' : 'none';
    await trx('accounts')
      .where({ id: input.accountId })
      .update({
        tier: input.tier,
        custom_quota: input.customQuota === undefined ? account.custom_quota : input.customQuota,
        usage_reset_at: change === 'upgrade' ? input.now : account.usage_reset_at,
        updated_at: input.now,
      });
    await publishChange(trx, { kind: 'account', id: input.accountId });
    return { account_id: input.accountId, tier: input.tier, previous_tier: account.tier, change };
  });
}

/**
 * Stores a key's IP allowlist (null allows any address) and tells every instance's key cache.
 * Checked input only: the rules (tier, parsing) are src/accounts/key-service.ts's.
 */
export async function storeKeyAllowlist(db: Db, keyId: string, allowed: string[] | null): Promise<void> {
  await db('api_keys').where({ id: keyId }).update({ allowed_cidrs: allowed });
  await publishChange(db, { kind: 'key', id: keyId });
}

/** A key's workspace, mode and account tier; undefined when there is no such key. */
export async function keyHolder(
  db: Db,
  keyId: string,
): Promise<{ workspace_id: string; mode: Mode; tier: Tier } | undefined> {
  return db('api_keys as k')
    .join('workspaces as w', 'w.id', 'k.workspace_id')
    .join('accounts as a', 'a.id', 'w.account_id')
    .where('k.id', keyId)
    .first('k.workspace_id', 'k.mode', 'a.tier');
}

export async function accountTier(db: Db, accountId: string): Promise<Tier | undefined> {
  const row = await db<AccountRow>('accounts').where({ id: accountId }).first('tier');
  return row?.tier;
}

/** The tier of the account owning a workspace; NotFoundError when there is no such workspace. */
export async function workspaceTier(db: Db, workspaceId: string): Promise<Tier> {
  const row = await db('workspaces as w')
    .join('accounts as a', 'a.id', 'w.account_id')
    .where('w.id', workspaceId)
    .first('a.tier');
  if (!row) throw new NotFoundError(`workspace ${workspaceId} does not exist`);
  return row.tier as Tier;
}

export class NotFoundError extends Error {}

function iso(value: Date | string | null): string | null {
  return value === null || value === undefined ? null : new Date(value).toISOString();
}
