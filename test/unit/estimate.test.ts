import assert from 'node:assert/strict';
import { estimateCompletion } from '../../src/audits/estimate';

describe('estimated completion', () => {
  const from = new Date('2026-11-21T10:00:00.000Z');

  it('scales live audits with the tier page budget and the measured crawl speed', () => {
    assert.equal(estimateCompletion('live', 'free', from, 100).toISOString(), '2026-11-21T10:00:04.000Z');
    assert.equal(estimateCompletion('live', 'pro', from, 100).toISOString(), '2026-11-21T10:00:13.000Z');
    assert.equal(estimateCompletion('live', 'pro', from, 20).toISOString(), '2026-11-21T10:00:05.000Z');
    assert.equal(estimateCompletion('live', 'enterprise', from, 50).toISOString(), '2026-11-21T10:01:43.000Z');
  });

  it('gives test audits a short constant', () => {
    assert.equal(estimateCompletion('test', 'team', from, 500).toISOString(), '2026-11-21T10:00:02.000Z');
  });
});
