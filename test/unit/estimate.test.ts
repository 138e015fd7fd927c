import assert from 'node:assert/strict';
import { backlogWaitMs, estimateCompletion } from '../../src/audits/estimate';

describe('estimated completion', () => {
  const from = new Date('2026-11-21T10:00:00.000Z');

  it('scales live audits with the tier page budget and the measured crawl speed', () => {
    assert.equal(estimateCompletion('live', 'free', from, 100).toISOString(), '2026-11-21T10:00:04.000Z');
    assert.equal(estimateCompletion('live', 'pro', from, 100).toISOString(), '2026-11-21T10:00:13.000Z');
    assert.equal(estimateCompletion('live', 'pro', from, 20).toISOString(), '2026-11-21T10:00:05.000Z');
    assert.equal(estimateCompletion('live', 'enterprise', from, 50).toISOString(), '2026-11-21T10:01:43.000Z');
  });

  it('gives test audits a short constant on an idle stack', () => {
    assert.equal(estimateCompletion('test', 'team', from, 500).toISOString(), '2026-11-21T10:00:02.000Z');
    assert.equal(
      estimateCompletion('test', 'team', from, 500, { inFlight: 0, finishedPerS: 40 }).toISOString(),
      '2026-11-21T10:00:02.000Z',
    );
  });

  it('adds the time the audits in flight take to drain at the measured rate', () => {
    // 300 test audits ahead, finishing 50 a second: 6 s, then its own 2 s.
    const backlog = { inFlight: 300, finishedPerS: 50 };
    assert.equal(backlogWaitMs('test', backlog), 6000);
    assert.equal(estimateCompletion('test', 'pro', from, 0, backlog).toISOString(), '2026-11-21T10:00:08.000Z');
    // 20 live audits ahead at 0.5 a second: 40 s before this one's own 13 s.
    assert.equal(
      estimateCompletion('live', 'pro', from, 100, { inFlight: 20, finishedPerS: 0.5 }).toISOString(),
      '2026-11-21T10:00:53.000Z',
    );
  });

  it('grows with the backlog and shrinks as the completion rate rises', () => {
    const at = (inFlight: number, finishedPerS: number) =>
      estimateCompletion('test', 'pro', from, 0, { inFlight, finishedPerS }).getTime();
    assert.ok(at(100, 20) < at(1000, 20));
    assert.ok(at(1000, 100) < at(1000, 20));
  });

  it('assumes a conservative rate when audits are in flight but none finished lately', () => {
    // A burst on a stack that was idle: the fallback of 10 test audits a second.
    assert.equal(backlogWaitMs('test', { inFlight: 50, finishedPerS: 0 }), 5000);
    assert.equal(backlogWaitMs('live', { inFlight: 3, finishedPerS: 0 }), 3000);
  });
});
