import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/api-error';
import { bodyValidator, queryValidator } from '../../src/api/validation';
import { listAuditsQuerySchema, triggerAuditBodySchema, type ListAuditsQuery, type TriggerAuditBody } from '../../src/schemas/api';
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
    assert.equal(messageOf(() => trigger({})), 'field domain is required');
    assert.equal(messageOf(() => trigger({ domain: 'https://a.com', colour: 'red' })), 'field colour is not allowed');
    assert.equal(messageOf(() => trigger({ domain: 42 })), 'field domain must be of type string');
    assert.equal(messageOf(() => trigger({ domain: 'https://a.com', tier: 'gold' })), 'field tier must be one of: free, pro, team, enterprise');
    assert.equal(messageOf(() => trigger(['https://a.com'])), 'body must be a JSON object');
  });

  it('coerces query strings, applies defaults and bounds limit', () => {
    assert.deepEqual(list({}), { limit: 50 });
    assert.deepEqual(list({ limit: '200' }), { limit: 200 });
    assert.equal(messageOf(() => list({ limit: '201' })), 'query parameter limit must be <= 200');
    assert.equal(messageOf(() => list({ limit: '0' })), 'query parameter limit must be >= 1');
    assert.equal(messageOf(() => list({ status: 'done' })), 'query parameter status must be one of: queued, running, completed, failed');
    assert.match(messageOf(() => list({ completed_after: 'yesterday' })), /^query parameter completed_after must be a valid RFC 3339 timestamp/);
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
  });

  it('parses knobs and rejects nonsense', () => {
    assert.deepEqual(loadConfig({ AUDIT_RETRY_DELAYS_MS: '10, 20,30' }).auditRetryDelaysMs, [10, 20, 30]);
    assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT must be a non-negative integer/);
  });
});
