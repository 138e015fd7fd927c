import { createHmac, randomBytes } from 'node:crypto';

/** Generated secrets: `whsec_` + base64 of 32 random bytes (the Standard Webhooks form). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret>. */
export function serviceSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Standard Webhooks key: the base64 part of a `whsec_` secret, decoded. A customer-chosen secret
 * of another form is used as its raw UTF-8 bytes (verify with `new Webhook(secret, { format: 'raw' })`).
 */
export function standardWebhooksKey(secret: string): Buffer {
  const base64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : null;
  if (base64 && /^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return Buffer.from(base64, 'base64');
  return Buffer.from(secret);
}

/** Standard Webhooks `webhook-signature`: v1,<base64 HMAC-SHA256 of "id.timestamp.body">. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * Every header of one delivery attempt, signed afresh (a new timestamp per attempt). `secrets` is the
 * webhook's current secret, then, during a rotation's grace period, the previous one: each signature
 * header then carries one signature per secret, the current one first (docs/decisions.md, "Webhook
 * lifecycle"). X-Service-Audit-Id names the audit an event is about; webhook.test and webhook.disabled
 * are about none and go without it.
 */
export function deliveryHeaders(input: {
  secrets: readonly string[];
  event: string;
  auditId: string | null;
  deliveryId: string;
  attempt: number;
  body: string;
  timestampSeconds: number;
}): Record<string, string> {
  if (input.secrets.length === 0) throw new Error('a delivery is signed with at least one secret');
  return {
    'content-type': 'application/json',
    'x-service-event': input.event,
    'x-service-signature': input.secrets.map((secret) => serviceSignature(secret, input.body)).join(', '),
    ...(input.auditId === null ? {} : { 'x-service-audit-id': input.auditId }),
    'x-service-delivery': input.deliveryId,
    'x-service-timestamp': String(input.timestampSeconds),
    'x-service-attempt': String(input.attempt),
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': input.secrets
      .map((secret) => standardSignature(secret, input.deliveryId, input.timestampSeconds, input.body))
      .join(' '),
  };
}

/** The secrets a webhook signs with at `now`: its own, and its previous one until that expires. */
export function signingSecrets(
  webhook: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | string | null },
  now: Date,
): string[] {
  const previousValid =
    webhook.previous_secret !== null &&
    webhook.previous_secret_expires_at !== null &&
    new Date(webhook.previous_secret_expires_at).getTime() > now.getTime();
  return previousValid ? [webhook.secret, webhook.previous_secret!] : [webhook.secret];
}
