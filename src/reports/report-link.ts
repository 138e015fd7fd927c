import { createHmac } from 'node:crypto';
import { macTextMatches } from './mac-text';

/**
 * Signed report links: `/v1/reports/{audit_id}.pdf?expires=…&key=…&signature=…`, served without
 * an API key. The signature is HMAC-SHA256 over the audit id and the expiry, keyed by one of the
 * service's report signing keys (named by `key`, so keys can be rotated while links signed with
 * the previous key keep working until they expire).
 */

/** Links are valid 60 minutes (README.md "Run an audit with curl", step 4). */
export const REPORT_LINK_TTL_MS = 60 * 60 * 1000;

export interface SigningKey {
  id: string;
  secret: Buffer;
}

export interface LinkParams {
  auditId: string;
  /** Unix seconds. */
  expires: number;
  keyId: string;
  signature: string;
}

export type LinkRejection = 'invalid_signature' | 'link_expired';

function mac(secret: Buffer, auditId: string, expires: number): Buffer {
  return createHmac('sha256', secret).update(`report-link.v1\n${auditId}\n${expires}`).digest();
}

export function signReportLink(key: SigningKey, auditId: string, now: Date): { params: LinkParams; expiresAt: Date } {
  const expires = Math.floor((now.getTime() + REPORT_LINK_TTL_MS) / 1000);
  const signature = mac(key.secret, auditId, expires).toString('base64url');
  return { params: { auditId, expires, keyId: key.id, signature }, expiresAt: new Date(expires * 1000) };
}

export function reportLinkUrl(baseUrl: string, params: LinkParams): string {
  const query = new URLSearchParams({
    expires: String(params.expires),
    key: params.keyId,
    signature: params.signature,
  });
  return `${baseUrl}/v1/reports/${encodeURIComponent(params.auditId)}.pdf?${query}`;
}

/** The link parameters from a request's path id and query; null when any is missing or malformed. */
export function parseLinkParams(auditId: string, query: Record<string, unknown>): LinkParams | null {
  const { expires, key, signature } = query;
  if (typeof expires !== 'string' || typeof key !== 'string' || typeof signature !== 'string') return null;
  if (!/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{1,64}$/.test(key) || !/^[A-Za-z0-9_-]{43}$/.test(signature))
    return null;
  return { auditId, expires: Number(expires), keyId: key, signature };
}

/**
 * Checks a link: the signature first (a forged or altered link is `invalid_signature` whatever its
 * expiry), then the expiry. `key` is the signing key the link names, or undefined when unknown.
 */
export function checkReportLink(params: LinkParams, key: SigningKey | undefined, now: Date): LinkRejection | null {
  if (!key) return 'invalid_signature';
  if (!macTextMatches(params.signature, mac(key.secret, params.auditId, params.expires))) return 'invalid_signature';
  if (now.getTime() >= params.expires * 1000) return 'link_expired';
  return null;
}
