import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  deliveryHeaders,
  generateWebhookSecret,
  serviceSignature,
  standardSignature,
  standardWebhooksKey,
} from '../../src/webhooks/signing';

describe('webhook signing', () => {
  const body = JSON.stringify({ audit_id: 'aud_1', domain: 'https://example.com', score: 91 });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.notEqual(secret, generateWebhookSecret());
  });

  it('signs the raw body per the spec recipe: sha256=<hex HMAC-SHA256 keyed with the whole secret>', () => {
    const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    assert.equal(serviceSignature(secret, body), `sha256=${expected}`);
    // A receiver's constant-time comparison accepts it and rejects a tampered body.
    const received = Buffer.from(serviceSignature(secret, body));
    assert.ok(timingSafeEqual(received, Buffer.from(`sha256=${expected}`)));
    assert.notEqual(serviceSignature(secret, `${body} `), `sha256=${expected}`);
  });

  it('carries Standard Webhooks headers that the published library verifies', () => {
    const secret = generateWebhookSecret();
    const timestampSeconds = Math.floor(Date.now() / 1000);
    const headers = deliveryHeaders({
      secrets: [secret],
      event: 'audit.completed',
      auditId: 'aud_1',
      deliveryId: 'dlv_1',
      attempt: 2,
      body,
      timestampSeconds,
    });
    assert.equal(headers['x-service-attempt'], '2');
    assert.equal(headers['webhook-id'], 'dlv_1');
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(secret).verify(body.replace('91', '19'), headers));
    // Replays are refused once the timestamp is old.
    const stale = deliveryHeaders({
      secrets: [secret],
      event: 'audit.completed',
      auditId: 'aud_1',
      deliveryId: 'dlv_1',
      attempt: 1,
      body,
      timestampSeconds: timestampSeconds - 3600,
    });
    assert.throws(() => new Webhook(secret).verify(body, stale), /timestamp/i);
  });

  it('sends exactly the documented headers, signed with a fresh timestamp', () => {
    const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';
    const headers = deliveryHeaders({
      secrets: [secret],
      event: 'audit.completed',
      auditId: 'aud_1',
      deliveryId: 'dlv_1',
      attempt: 3,
      body,
      timestampSeconds: 1_790_000_000,
    });
    assert.deepEqual(headers, {
      'content-type': 'application/json',
      'x-service-event': 'audit.completed',
      'x-service-signature': serviceSignature(secret, body),
      'x-service-audit-id': 'aud_1',
      'x-service-delivery': 'dlv_1',
      'x-service-timestamp': '1790000000',
      'x-service-attempt': '3',
      'webhook-id': 'dlv_1',
      'webhook-timestamp': '1790000000',
      'webhook-signature': standardSignature(secret, 'dlv_1', 1_790_000_000, body),
    });
    const mac = createHmac('sha256', Buffer.from('c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==', 'base64'))
      .update(`dlv_1.1790000000.${body}`)
      .digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${mac}`);
  });

  it('takes the Standard Webhooks key from whsec_ base64, else the raw secret bytes', () => {
    assert.deepEqual(standardWebhooksKey('whsec_AAEC'), Buffer.from([0, 1, 2]));
    assert.deepEqual(standardWebhooksKey('whsec_AAE='), Buffer.from([0, 1]));
    assert.deepEqual(standardWebhooksKey('whsec_AA=='), Buffer.from([0]));
    assert.deepEqual(standardWebhooksKey('whsec_+/+/'), Buffer.from('+/+/', 'base64'));
    for (const raw of [
      'whsec_',
      'whsec_not base64!',
      'whsec_AA===',
      'whsec_=AA',
      'xwhsec_AAEC',
      'WHSEC_AAEC',
      'plain secret',
      'whsec_AAEC\n',
    ]) {
      assert.deepEqual(standardWebhooksKey(raw), Buffer.from(raw, 'utf8'), JSON.stringify(raw));
    }
  });

  it('signs customer-chosen secrets with their raw bytes for Standard Webhooks', () => {
    const secret = 'my own shared secret, long enough';
    const headers = deliveryHeaders({
      secrets: [secret],
      event: 'audit.failed',
      auditId: 'aud_1',
      deliveryId: 'dlv_2',
      attempt: 1,
      body,
      timestampSeconds: Math.floor(Date.now() / 1000),
    });
    assert.deepEqual(new Webhook(secret, { format: 'raw' }).verify(body, headers), JSON.parse(body));
    assert.equal(headers['x-service-signature'], `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  });
});
