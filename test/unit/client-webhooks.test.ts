import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../src/client';
import { deliveryHeaders, generateWebhookSecret } from '../../src/webhooks/signing';

describe('typed client: webhook verification', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ audit_id: 'aud_1', domain: 'https://example.com', attempts: 4 });
  // Now, so the Standard Webhooks library (which reads the clock itself) accepts the timestamp too.
  const now = new Date();
  const signedAt = Math.floor(now.getTime() / 1000);
  const headers = (overrides: Partial<Parameters<typeof deliveryHeaders>[0]> = {}) =>
    deliveryHeaders({
      secrets: [secret],
      event: 'audit.failed',
      auditId: 'aud_1',
      deliveryId: 'dlv_abc',
      attempt: 2,
      body,
      timestampSeconds: signedAt,
      ...overrides,
    });

  it('accepts a delivery as the service signs it and returns its typed parts', () => {
    const verified = verifyWebhook({ secret, headers: headers(), body, now });
    assert.equal(verified.event, 'audit.failed');
    assert.equal(verified.deliveryId, 'dlv_abc');
    assert.equal(verified.attempt, 2);
    assert.deepEqual(verified.payload, JSON.parse(body));
    // The same delivery passes the published Standard Webhooks library, so both agree on the scheme.
    const std = new Webhook(secret.slice('whsec_'.length));
    assert.deepEqual(std.verify(body, headers()), JSON.parse(body));
  });

  it('reads headers from a fetch Headers object and in any case', () => {
    const upper = Object.fromEntries(Object.entries(headers()).map(([k, v]) => [k.toUpperCase(), v]));
    assert.equal(verifyWebhook({ secret, headers: upper, body, now }).event, 'audit.failed');
    assert.equal(verifyWebhook({ secret, headers: new Headers(headers()), body: Buffer.from(body), now }).attempt, 2);
  });

  it('refuses a changed body, another secret, a stale or future timestamp and missing headers', () => {
    const refuses = (input: Parameters<typeof verifyWebhook>[0], message: RegExp) =>
      assert.throws(
        () => verifyWebhook(input),
        (err: Error) => err instanceof WebhookVerificationError && message.test(err.message),
      );
    refuses({ secret, headers: headers(), body: body.replace('4', '5'), now }, /webhook-signature/);
    refuses({ secret: generateWebhookSecret(), headers: headers(), body, now }, /webhook-signature/);
    refuses({ secret, headers: headers({ timestampSeconds: signedAt - 301 }), body, now }, /300 seconds/);
    refuses({ secret, headers: headers({ timestampSeconds: signedAt + 301 }), body, now }, /300 seconds/);
    refuses({ secret, headers: { ...headers(), 'webhook-id': '' }, body, now }, /missing/);
    refuses(
      { secret, headers: { ...headers(), 'x-service-signature': 'sha256=00' }, body, now },
      /X-Service-Signature/,
    );
    // A tolerance of its own: 10 minutes accepts what 5 refuse.
    const old = headers({ timestampSeconds: signedAt - 400 });
    assert.equal(verifyWebhook({ secret, headers: old, body, now, toleranceSeconds: 600 }).event, 'audit.failed');
  });

  it('accepts any one of several signatures (the secret being rotated)', () => {
    const h = headers();
    const rotated = {
      ...h,
      'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${h['webhook-signature']}`,
    };
    assert.equal(verifyWebhook({ secret, headers: rotated, body, now }).deliveryId, 'dlv_abc');
  });
});
