import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseList } from 'structured-headers';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../src/client';
import { rateLimitFields } from '../../src/api/rate-limit-fields';
import { WEBHOOK_EVENTS } from '../../src/webhooks/events';
import { listDeliveriesQuerySchema } from '../../src/schemas/api-webhooks';
import { deliveryHeaders, generateWebhookSecret, serviceSignature, signingSecrets } from '../../src/webhooks/signing';
import { ROOT } from '../support/code-structure';

/**
 * The webhook lifecycle's pure parts (docs/decisions.md, "Webhook lifecycle" and "Rate-limit fields"):
 * two signatures per header during a rotation, the typed client's verification of either, the
 * client's independence of the service's code, and the RateLimit fields as Structured Fields.
 */
describe('webhook lifecycle: rotation signatures', () => {
  const previous = generateWebhookSecret();
  const current = generateWebhookSecret();
  const body = JSON.stringify({ type: 'webhook.test', webhook_id: 'wh_1', sent_at: '2026-11-28T10:00:00.000Z' });
  // Taken per test, not at load: the published library refuses a timestamp 5 minutes off the clock,
  // and a full run reaches this file's tests long after loading it.
  let now: Date;
  beforeEach(() => {
    now = new Date();
  });
  const headers = (secrets: string[]) =>
    deliveryHeaders({
      secrets,
      event: 'webhook.test',
      auditId: null,
      deliveryId: 'dlv_rotation',
      attempt: 1,
      body,
      timestampSeconds: Math.floor(now.getTime() / 1000),
    });

  it('signs with both secrets during the grace period, the new one first, in both headers', () => {
    const signed = headers([current, previous]);
    assert.equal(
      signed['x-service-signature'],
      `${serviceSignature(current, body)}, ${serviceSignature(previous, body)}`,
    );
    assert.equal(signed['webhook-signature'].split(' ').length, 2);
    assert.ok(signed['webhook-signature'].split(' ').every((v) => v.startsWith('v1,')));
    assert.equal('x-service-audit-id' in signed, false, 'an event about no audit names none');
    // The published library accepts the delivery with either secret.
    for (const secret of [current, previous])
      assert.deepEqual(new Webhook(secret.slice('whsec_'.length)).verify(body, signed), JSON.parse(body));
    assert.throws(() => new Webhook(generateWebhookSecret().slice('whsec_'.length)).verify(body, signed));
  });

  it("keeps the previous secret only until its grace period's end", () => {
    const row = {
      secret: current,
      previous_secret: previous,
      previous_secret_expires_at: new Date(now.getTime() + 1000),
    };
    assert.deepEqual(signingSecrets(row, now), [current, previous]);
    assert.deepEqual(signingSecrets(row, new Date(now.getTime() + 1000)), [current]);
    assert.deepEqual(signingSecrets({ ...row, previous_secret: null, previous_secret_expires_at: null }, now), [
      current,
    ]);
  });

  it("lets the typed client's verifyWebhook accept either secret during the grace period, and a list of both", () => {
    const signed = headers([current, previous]);
    for (const secret of [current, previous, [previous, current]])
      assert.equal(verifyWebhook({ secret, headers: signed, body, now }).event, 'webhook.test');
    assert.throws(
      () => verifyWebhook({ secret: generateWebhookSecret(), headers: signed, body, now }),
      WebhookVerificationError,
    );
    // After the grace period only the new secret signs: the old one no longer verifies.
    const after = headers([current]);
    assert.equal(verifyWebhook({ secret: current, headers: after, body, now }).deliveryId, 'dlv_rotation');
    assert.throws(() => verifyWebhook({ secret: previous, headers: after, body, now }), /webhook-signature/);
    // Both headers are checked: a forged spec signature beside a valid Standard Webhooks one is refused.
    assert.throws(
      () =>
        verifyWebhook({
          secret: current,
          headers: { ...signed, 'x-service-signature': 'sha256=00, sha256=11' },
          body,
          now,
        }),
      /X-Service-Signature/,
    );
  });

  it('ships the typed client without any of the service code (only its own files, node: and openapi-fetch)', () => {
    const seen = new Set<string>();
    const pending = [path.join(ROOT, 'src/client/index.ts')];
    const outside: string[] = [];
    while (pending.length) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)) {
        if (spec.startsWith('node:') || spec === 'openapi-fetch') continue;
        if (!spec.startsWith('.')) outside.push(`${path.relative(ROOT, file)} → ${spec}`);
        const target = path.resolve(path.dirname(file), spec) + '.ts';
        if (!target.startsWith(path.join(ROOT, 'src/client/'))) outside.push(`${path.relative(ROOT, file)} → ${spec}`);
        else pending.push(target);
      }
    }
    assert.deepEqual(outside, []);
    assert.ok(seen.size >= 3, 'index.ts, schema.gen.ts and webhook-signatures.ts');
  });

  it('lists the same subscribable events in the API schema as the service sends', () => {
    assert.deepEqual(
      [...listDeliveriesQuerySchema.properties.event.enum].sort(),
      [...WEBHOOK_EVENTS, 'webhook.test'].sort(),
    );
  });
});

describe('webhook lifecycle: RateLimit fields', () => {
  const now = new Date('2026-11-28T12:00:00.000Z');
  const parsed = (fields: Record<string, string>) => ({
    policy: new Map(parseList(fields['RateLimit-Policy']).map(([name, params]) => [name, Object.fromEntries(params)])),
    limits: new Map(parseList(fields.RateLimit).map(([name, params]) => [name, Object.fromEntries(params)])),
  });

  it('describes the quota, the burst and the retrieval window, and what is left of the one that applied', () => {
    const fields = rateLimitFields({
      limit: 50,
      remaining: 42,
      now,
      testMode: false,
      window: { policy: 'retrieval', remaining: 97, resetSeconds: 41 },
    });
    const { policy, limits } = parsed(fields);
    assert.deepEqual([...policy.keys()], ['quota', 'burst', 'retrieval']);
    assert.deepEqual(policy.get('quota'), { q: 50, w: 30 * 24 * 3600 });
    assert.deepEqual(policy.get('burst'), { q: 10, w: 60 });
    assert.deepEqual(policy.get('retrieval'), { q: 100, w: 60 });
    // The quota resets at the start of December: 2.5 days away.
    assert.deepEqual(limits.get('quota'), { r: 42, t: 2.5 * 24 * 3600 });
    assert.deepEqual(limits.get('retrieval'), { r: 97, t: 41 });
    assert.equal(limits.has('burst'), false);
  });

  it('names no burst or retrieval window for test keys, which have none', () => {
    const fields = rateLimitFields({
      limit: 5,
      remaining: 5,
      now,
      testMode: true,
      window: { policy: 'retrieval', remaining: 1, resetSeconds: 1 },
    });
    const { policy, limits } = parsed(fields);
    assert.deepEqual([...policy.keys()], ['quota']);
    assert.deepEqual([...limits.keys()], ['quota']);
  });
});
