import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The receiver's side of the delivery signatures (README "Webhooks"), for the typed client. The
 * client ships to customers on its own, so it imports nothing from the service: these follow the
 * documented scheme, and test/unit/client-webhooks.test.ts checks them against what the service sends.
 */

/** `sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret string. */
export function specSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Standard Webhooks: the key is the base64 part of a `whsec_` secret, decoded; any other secret its UTF-8 bytes. */
function standardKey(secret: string): Buffer {
  const base64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : null;
  if (base64 && /^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return Buffer.from(base64, 'base64');
  return Buffer.from(secret);
}

/** Standard Webhooks `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`. */
export function standardWebhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** X-Service-Signature lists one signature, or two (`sha256=<new>, sha256=<previous>`) during a rotation. */
export function specSignatureMatches(header: string, secrets: readonly string[], body: string): boolean {
  const offered = header
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return secrets.some((secret) => offered.some((candidate) => sameText(candidate, specSignature(secret, body))));
}

/** webhook-signature lists space-separated `v1,` signatures (two during a rotation): one match is enough. */
export function standardSignatureMatches(
  header: string,
  secrets: readonly string[],
  signed: { id: string; timestamp: number; body: string },
): boolean {
  const offered = header.split(' ').filter(Boolean);
  return secrets.some((secret) => {
    const expected = standardWebhookSignature(secret, signed.id, signed.timestamp, signed.body);
    return offered.some((candidate) => sameText(candidate, expected));
  });
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
