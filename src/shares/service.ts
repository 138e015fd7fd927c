import { requireFeature } from '../accounts/tier-gate';
import { FEATURE_MIN_TIER, tierAtLeast } from '../accounts/tiers';
import { loadAuditOutline } from '../audits/repository';
import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import { ApiError } from '../errors';
import { hasIdShape, newShareId } from '../ids';
import { nextAttemptAt, returnAttempt, takeAttempt, throttleSubject } from '../people/attempt-limit';
import { hashPassword, passwordProblem, verifyPassword } from '../people/passwords';
import type { SigningKeyring } from '../reports/signing-keys';
import type { AuditJson, Mode, Tier } from '../schemas/audit';
import type { ShareOpenings } from './openings';
import { checkShareAccess, isShareToken, newShareToken, shareTokenHash, shareUrl, signShareAccess } from './access';
import {
  findShareByTokenHash,
  insertShare,
  listAuditShares,
  loadSharedResult,
  markShareRevoked,
  type OpenedShare,
  type ShareRow,
} from './repository';

/**
 * Share links (docs/decisions.md, "Share links"), one implementation for every surface that offers
 * them: the API's routes, the public page, and the dashboard. The owner's actions check the tier gate
 * (pro and up) and their own rules and throw ApiError with the spec's codes; request shapes are the
 * caller's to validate (the API with ajv), and are checked again here for callers without a schema.
 */
export interface ShareServiceDeps {
  db: Db;
  clock: Clock;
  /** Public base URL of the service: where the link points. */
  baseUrl: () => string;
}

/** Who acts: the workspace and environment seen, and the account's tier. */
export interface ShareActor {
  scope: { workspaceId: string; mode: Mode };
  usage: { tier: Tier } | undefined;
}

export const SHARE_RULES = {
  expiresInDays: { min: 1, max: 90, default: 30 },
  /** Password guesses per link (wrong or right) before every guess is refused until the window ends. */
  attempts: { limit: 5, windowMs: 15 * 60_000 },
} as const;

const DAY_MS = 24 * 3600_000;

/** A new link to an audit of the actor's scope; its URL is in this answer only (the token is not stored). */
export async function createShare(
  deps: ShareServiceDeps,
  actor: ShareActor,
  auditId: string,
  input: { expiresInDays?: number; password?: string | null },
): Promise<{ share: ShareRow; url: string }> {
  requireFeature(actor.usage, 'shares');
  await requireAuditIn(deps.db, actor.scope, auditId);
  const days = input.expiresInDays ?? SHARE_RULES.expiresInDays.default;
  const { min, max } = SHARE_RULES.expiresInDays;
  if (!Number.isInteger(days) || days < min || days > max)
    throw new ApiError('invalid_request', `field expires_in_days must be a whole number from ${min} to ${max}`);
  let passwordHash: string | null = null;
  if (input.password !== undefined && input.password !== null) {
    const problem = passwordProblem(input.password);
    if (problem) throw new ApiError('invalid_request', `field password is refused: ${problem}`);
    passwordHash = await hashPassword(input.password);
  }
  const token = newShareToken();
  const now = deps.clock.now();
  const share: ShareRow = {
    id: newShareId(),
    workspace_id: actor.scope.workspaceId,
    mode: actor.scope.mode,
    audit_id: auditId,
    token_hash: shareTokenHash(token),
    password_hash: passwordHash,
    expires_at: new Date(now.getTime() + days * DAY_MS),
    created_at: now,
    revoked_at: null,
  };
  await insertShare(deps.db, share);
  return { share, url: shareUrl(deps.baseUrl(), token) };
}

/** The audit's links that were not revoked (expired ones too, marked so by the presenter), newest first. */
export async function listShares(deps: ShareServiceDeps, actor: ShareActor, auditId: string): Promise<ShareRow[]> {
  requireFeature(actor.usage, 'shares');
  await requireAuditIn(deps.db, actor.scope, auditId);
  return listAuditShares(deps.db, actor.scope, auditId);
}

/** Revokes a link now: its page and badge answer 404 from the next request on. */
export async function revokeShare(deps: ShareServiceDeps, actor: ShareActor, shareId: string): Promise<void> {
  requireFeature(actor.usage, 'shares');
  if (!hasIdShape('share', shareId) || !(await markShareRevoked(deps.db, actor.scope, shareId, deps.clock.now())))
    throw new ApiError(
      'share_not_found',
      hasIdShape('share', shareId) ? `no share link ${shareId} in this workspace` : 'no share link with this id',
    );
}

/**
 * The link a visitor's token opens, or null when it opens nothing: malformed, unknown, revoked,
 * expired, or its account no longer on a tier with share links. The page and the badge answer every
 * null alike (404), so a visitor cannot tell a revoked link from one that never existed. Checked on
 * every request, before anything kept of the link is served (from the database, or from what
 * `shareOpenings` keeps coherent with it); `onClosed` hears of a known link that no longer opens (so
 * what was kept of it can go).
 */
export async function openShare(
  deps: Pick<ShareServiceDeps, 'db' | 'clock'> & { shareOpenings?: ShareOpenings },
  token: string,
  onClosed?: (shareId: string) => void,
): Promise<OpenedShare | null> {
  if (!isShareToken(token)) return null;
  const tokenHash = shareTokenHash(token);
  const opened = await (deps.shareOpenings?.find(tokenHash) ?? findShareByTokenHash(deps.db, tokenHash));
  if (!opened) return null;
  if (opens(opened, deps.clock.now())) return opened;
  onClosed?.(opened.share.id);
  return null;
}

function opens(opened: OpenedShare, now: Date): boolean {
  return (
    opened.share.revoked_at === null &&
    now.getTime() < new Date(opened.share.expires_at).getTime() &&
    tierAtLeast(opened.ownerTier, FEATURE_MIN_TIER.shares)
  );
}

export type UnlockOutcome =
  { outcome: 'open' } | { outcome: 'wrong' } | { outcome: 'throttled'; retryAfterSeconds: number };

/**
 * A password guess at a link, counted per link before the scrypt work (src/people/attempt-limit.ts),
 * so however many arrive at once no more than SHARE_RULES.attempts.limit are checked per window. Past
 * the limit every guess, the right one included, is refused until the oldest counted one leaves the
 * window. A right password gives its own attempt back; it clears no earlier failure.
 */
export async function unlockShare(
  deps: Pick<ShareServiceDeps, 'db' | 'clock'>,
  share: Pick<ShareRow, 'id' | 'password_hash'>,
  password: string,
): Promise<UnlockOutcome> {
  if (share.password_hash === null) return { outcome: 'open' };
  const subject = throttleSubject('share-password', share.id);
  const { limit, windowMs } = SHARE_RULES.attempts;
  const attempt = await takeAttempt(deps.db, deps.clock, [{ subject, limit, windowMs }]);
  if (!attempt) {
    const at = await nextAttemptAt(deps.db, deps.clock, subject);
    return {
      outcome: 'throttled',
      retryAfterSeconds: Math.max(1, Math.ceil((at.getTime() - deps.clock.now().getTime()) / 1000)),
    };
  }
  let right: boolean;
  try {
    right = await verifyPassword(password, share.password_hash);
  } catch (err) {
    await returnAttempt(deps.db, attempt).catch(() => undefined); // a check that could not run is no guess
    throw err;
  }
  if (!right) return { outcome: 'wrong' };
  await returnAttempt(deps.db, attempt);
  return { outcome: 'open' };
}

/** The report a link shows: the audit's stored JSON once it has completed, else null (the page shows its status). */
export async function sharedResult(deps: Pick<ShareServiceDeps, 'db'>, opened: OpenedShare): Promise<AuditJson | null> {
  const json = await loadSharedResult(deps.db, opened.audit.id);
  return json === null ? null : (JSON.parse(json) as AuditJson);
}

/** What a browser keeps once it gave the right password: the signed `share_access` cookie's value and lifetime. */
export async function grantShareAccess(
  deps: Pick<ShareServiceDeps, 'clock'> & { keyring: SigningKeyring },
  share: Pick<ShareRow, 'id' | 'expires_at'>,
): Promise<{ value: string; maxAgeSeconds: number }> {
  const now = deps.clock.now();
  return signShareAccess(await deps.keyring.signingKey(now), share, now);
}

/** Whether this visitor may see the link: it has no password, or the browser holds its valid access cookie. */
export async function mayViewShare(
  deps: Pick<ShareServiceDeps, 'clock'> & { keyring: SigningKeyring },
  share: Pick<ShareRow, 'id' | 'password_hash'>,
  cookie: string | undefined,
): Promise<boolean> {
  if (share.password_hash === null) return true;
  return checkShareAccess(cookie, share.id, (id) => deps.keyring.find(id), deps.clock.now());
}

/** The audit `auditId` names, in the actor's scope; 404 audit_not_found otherwise (as the API's other audit routes). */
async function requireAuditIn(db: Db, scope: ShareActor['scope'], auditId: string): Promise<void> {
  const audit = hasIdShape('audit', auditId) ? await loadAuditOutline(db, auditId) : undefined;
  if (!audit || audit.workspace_id !== scope.workspaceId || audit.mode !== scope.mode)
    throw new ApiError(
      'audit_not_found',
      hasIdShape('audit', auditId)
        ? `no audit ${auditId} in this workspace`
        : 'no audit with this id in this workspace',
    );
}
