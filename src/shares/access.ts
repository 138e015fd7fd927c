import { createHmac, hash, randomBytes } from 'node:crypto';
import { macTextMatches } from '../reports/mac-text';
import { REPORT_LINK_TTL_MS, type SigningKey } from '../reports/report-link';

/**
 * The secrets of a share link (docs/decisions.md, "Share links"): the URL's token, and the cookie that
 * lets a visitor who gave the password back in for a while.
 */

/** 32 random bytes, base64url: the whole credential of a link. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function newShareToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `value` can be a token at all: anything else is answered 404 without a query. */
export function isShareToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN.test(value);
}

/**
 * What is stored and looked up instead of the token. A plain SHA-256 suffices: the token has 256 bits
 * of entropy, so the digest cannot be reversed by guessing, and a lookup by digest tells a timing
 * observer nothing about any token.
 */
export function shareTokenHash(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

export function shareUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/share/${token}`;
}

/** The path the page, its password form and its badge live under (the access cookie's Path). */
export function sharePath(token: string): string {
  return `/share/${token}`;
}

/**
 * An unlocked link stays open this long in that browser: as long as a signed report link lives, so a
 * retired signing key still verifies every cookie it signed (src/reports/signing-keys.ts prunes keys
 * retired longer ago than that).
 */
export const SHARE_ACCESS_TTL_MS = REPORT_LINK_TTL_MS;

export const SHARE_ACCESS_COOKIE = 'share_access';

function mac(secret: Buffer, shareId: string, expires: number): Buffer {
  // Its own prefix: a report link's signature can never pass for an access cookie, nor the reverse.
  return createHmac('sha256', secret).update(`share-access.v1\n${shareId}\n${expires}`).digest();
}

/** `{key id}.{expiry, unix s}.{HMAC}`, valid until the earlier of SHARE_ACCESS_TTL_MS and the link's own expiry. */
export function signShareAccess(
  key: SigningKey,
  share: { id: string; expires_at: Date },
  now: Date,
): { value: string; maxAgeSeconds: number } {
  const until = Math.min(now.getTime() + SHARE_ACCESS_TTL_MS, new Date(share.expires_at).getTime());
  const expires = Math.floor(until / 1000);
  const value = `${key.id}.${expires}.${mac(key.secret, share.id, expires).toString('base64url')}`;
  return { value, maxAgeSeconds: Math.max(0, expires - Math.floor(now.getTime() / 1000)) };
}

/** Whether the cookie value was signed for this link by one of our keys and has not expired. */
export async function checkShareAccess(
  value: string | undefined,
  shareId: string,
  findKey: (id: string) => Promise<SigningKey | undefined>,
  now: Date,
): Promise<boolean> {
  const match = /^(rsk_[A-Za-z0-9]{1,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
  if (!match) return false;
  const [, keyId, expiresText, signature] = match;
  const expires = Number(expiresText);
  if (now.getTime() >= expires * 1000) return false;
  const key = await findKey(keyId!);
  if (!key) return false;
  return macTextMatches(signature!, mac(key.secret, shareId, expires));
}
