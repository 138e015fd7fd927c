import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors';
import { bodyValidator, queryValidator } from '../../src/api/validation';
import { decodeCursor, encodeCursor } from '../../src/presenters/cursor';
import { hasIdShape, newLiveAuditId, testAuditId } from '../../src/ids';
import {
  createWebhookBodySchema,
  listAuditsQuerySchema,
  pageQuerySchema,
  triggerAuditBodySchema,
  type CreateWebhookBody,
  type ListAuditsQuery,
  type PageQuery,
  type TriggerAuditBody,
} from '../../src/schemas/api';
import { loadConfig } from '../../src/config';

const trigger = bodyValidator<TriggerAuditBody>(triggerAuditBodySchema);
const list = queryValidator<ListAuditsQuery>(listAuditsQuerySchema);

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'invalid_request');
    return err.message;
  }
  assert.fail('expected invalid_request');
}

describe('request validation', () => {
  it('names the missing, unknown or mistyped field', () => {
    assert.equal(
      messageOf(() => trigger({})),
      'field domain is required',
    );
    assert.equal(
      messageOf(() => trigger({ domain: 'https://a.com', colour: 'red' })),
      'field colour is not allowed',
    );
    assert.equal(
      messageOf(() => trigger({ domain: 42 })),
      'field domain must be of type string',
    );
    assert.equal(
      messageOf(() => trigger({ domain: 'https://a.com', tier: 'gold' })),
      'field tier must be one of: free, pro, team, enterprise',
    );
    assert.equal(
      messageOf(() => trigger(['https://a.com'])),
      'body must be a JSON object',
    );
  });

  it('coerces query strings, applies defaults and bounds limit', () => {
    assert.deepEqual(list({}), { limit: 50 });
    assert.deepEqual(list({ limit: '200' }), { limit: 200 });
    assert.equal(
      messageOf(() => list({ limit: '201' })),
      'query parameter limit must be <= 200',
    );
    assert.equal(
      messageOf(() => list({ limit: '0' })),
      'query parameter limit must be >= 1',
    );
    assert.equal(
      messageOf(() => list({ status: 'done' })),
      'query parameter status must be one of: queued, running, completed, failed',
    );
    assert.match(
      messageOf(() => list({ completed_after: 'yesterday' })),
      /^query parameter completed_after must be a valid RFC 3339 timestamp/,
    );
  });
});

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.temporalPort, 7233);
    assert.deepEqual(config.auditRetryDelaysMs, [30_000, 120_000, 480_000]);
    assert.deepEqual(config.deliveryRetryDelaysMs, [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000]);
    assert.equal(config.deliveryTimeoutMs, 5000);
    assert.equal(config.browserRenderTimeoutMs, 30_000);
  });

  it('parses knobs and rejects nonsense', () => {
    assert.deepEqual(loadConfig({ AUDIT_RETRY_DELAYS_MS: '10, 20,30' }).auditRetryDelaysMs, [10, 20, 30]);
    assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT must be a non-negative integer/);
    assert.equal(loadConfig({ BROWSER_RENDER_TIMEOUT_MS: '12000' }).browserRenderTimeoutMs, 12_000);
    for (const outside of ['999', '30001'])
      assert.throws(
        () => loadConfig({ BROWSER_RENDER_TIMEOUT_MS: outside }),
        new RegExp(`BROWSER_RENDER_TIMEOUT_MS must be from 1000 to 30000, got "${outside}"`),
      );
  });
});

describe('request validation: input that cannot be stored as sent', () => {
  const page = queryValidator<PageQuery>(pageQuerySchema);
  const webhook = bodyValidator<CreateWebhookBody>(createWebhookBodySchema);

  it('refuses control characters and lone surrogates, naming the field', () => {
    assert.equal(
      messageOf(() => trigger({ domain: 'https://a.com\u0000' })),
      'field domain must not contain control characters',
    );
    assert.equal(
      messageOf(() => trigger({ domain: 'https://a.com\u009f' })),
      'field domain must not contain control characters',
    );
    assert.equal(
      messageOf(() => trigger({ domain: 'https://a\ud800.com' })),
      'field domain must be valid Unicode text',
    );
    assert.equal(
      messageOf(() => webhook({ url: 'https://h.example', events: ['audit.failed', 'x\u0001'] })),
      'field events.1 must not contain control characters',
    );
    assert.equal(
      messageOf(() => list({ domain: ['a.com', '\u0000'] })),
      'query parameter domain must not contain control characters',
    );
    // A character outside the BMP is a valid pair, not a lone half.
    assert.deepEqual(trigger({ domain: 'https://\u{1F600}.example' }), { domain: 'https://\u{1F600}.example' });
  });

  it('takes limit as digits only', () => {
    for (const limit of ['Infinity', '-Infinity', '1e2', '0x10', '5.0', ' 5', '-1', '']) {
      assert.equal(
        messageOf(() => page({ limit })),
        'query parameter limit must be a whole number written in digits',
        limit,
      );
    }
    assert.deepEqual(page({ limit: '007' }), { limit: 7 });
  });

  it('takes timestamps Postgres can hold, in UTC', () => {
    assert.match(
      messageOf(() => list({ completed_after: '0000-01-01T00:00:00Z' })),
      /completed_after must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z/,
    );
    assert.equal(list({ completed_after: '2026-01-01T00:00:00+23:59' }).completed_after, '2025-12-31T00:01:00.000Z');
    assert.equal(list({ completed_before: '0001-01-01T00:00:00Z' }).completed_before, '0001-01-01T00:00:00.000Z');
  });

  it('explains a webhook secret it refuses with the schema description', () => {
    assert.equal(
      messageOf(() => webhook({ url: 'https://h.example', secret: 'with spaces in the secret' })),
      'field secret must match pattern ^[!-~]+$ (HMAC signing secret of 16 to 128 printable ASCII characters without spaces; generated (whsec_…) when omitted.)',
    );
    assert.match(
      messageOf(() => webhook({ url: 'https://h.example', secret: 'x'.repeat(129) })),
      /secret must NOT have more than 128 characters/,
    );
    assert.deepEqual(webhook({ url: 'https://h.example', secret: '!~'.repeat(64) }).secret, '!~'.repeat(64));
  });
});

describe('cursors', () => {
  const time = '2026-11-01T10:00:00.000Z';
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('round-trips what encodeCursor wrote', () => {
    const cursor = encodeCursor({ created_at: new Date(time), id: 'aud_01JXYZ' });
    assert.deepEqual(decodeCursor(cursor, 'audit'), { createdAt: time, id: 'aud_01JXYZ' });
  });

  it('refuses anything else with invalid_request', () => {
    const bad = [
      encode(['12345', 'aud_01JXYZ']),
      encode(['0000-01-01T00:00:00.000Z', 'aud_01JXYZ']),
      encode(['2026-02-30T10:00:00.000Z', 'aud_01JXYZ']),
      encode(['2026-11-01T10:00:00Z', 'aud_01JXYZ']),
      encode([time, 'aud_\u0000']),
      encode([time, 'wh_01JXYZ']),
      encode([time, 42]),
      encode([time]),
      encode({ 0: time, 1: 'aud_01JXYZ' }),
      'not base64!',
      'A'.repeat(513),
    ];
    for (const cursor of bad)
      assert.match(
        messageOf(() => decodeCursor(cursor, 'audit')),
        /cursor is invalid/,
        cursor,
      );
    assert.match(
      messageOf(() => decodeCursor(encode([time, 'aud_01JXYZ']), 'webhook')),
      /cursor is invalid/,
    );
  });
});

describe('id shapes', () => {
  it('accepts the ids the service makes and nothing else', () => {
    assert.ok(hasIdShape('audit', newLiveAuditId()));
    assert.ok(hasIdShape('audit', testAuditId('ws_x', 'https://a.com')));
    assert.ok(hasIdShape('webhook', 'wh_AbC123'));
    assert.ok(hasIdShape('delivery', 'dlv_0a1B'));
    for (const id of [
      'aud_',
      'aud_\u0000',
      'AUD_x',
      'aud_x-y',
      `aud_${'a'.repeat(65)}`,
      'wh_x',
      'aud_é',
      42,
      undefined,
    ]) {
      assert.equal(hasIdShape('audit', id), false, String(id));
    }
  });
});
