import assert from 'node:assert/strict';
import { regressionOf, siteRegressedBody } from '../../src/sites/regression';

function audit(delta: number, fresh: Array<{ fingerprint: string; severity: string }>, comparison = true): string {
  return JSON.stringify({
    audit_id: 'aud_B',
    score: 70,
    findings: [
      ...fresh.map((f) => ({ ...f, analyzer: 'SEC_X', title: `t ${f.fingerprint}` })),
      { fingerprint: 'fp_old', severity: 'critical', analyzer: 'SEC_Y', title: 'old' },
    ],
    ...(comparison
      ? {
          comparison: {
            previous_audit_id: 'aud_A',
            previous_score: 70 - delta,
            score_delta: delta,
            categories: {},
            new: fresh.map((f) => f.fingerprint),
            fixed: [],
            unchanged: 1,
          },
        }
      : {}),
  });
}

describe('site regression', () => {
  it('is a drop of 5 points or more, or a new high or critical finding', () => {
    assert.equal(regressionOf(audit(-4, [{ fingerprint: 'fp_a', severity: 'medium' }])), null);
    assert.notEqual(regressionOf(audit(-5, [])), null);
    assert.notEqual(regressionOf(audit(3, [{ fingerprint: 'fp_a', severity: 'high' }])), null);
    assert.notEqual(regressionOf(audit(0, [{ fingerprint: 'fp_a', severity: 'critical' }])), null);
    // A critical finding that is not new (fp_old) is no regression.
    assert.equal(regressionOf(audit(0, [])), null);
    assert.equal(regressionOf(audit(-20, [], false)), null, 'no comparison, no regression');
  });

  it('builds the site.regressed body with every new finding', () => {
    const regression = regressionOf(
      audit(-6, [
        { fingerprint: 'fp_a', severity: 'low' },
        { fingerprint: 'fp_b', severity: 'high' },
      ]),
    )!;
    assert.deepEqual(JSON.parse(siteRegressedBody({ siteId: 'site_1', auditId: 'aud_B', regression })), {
      site_id: 'site_1',
      audit_id: 'aud_B',
      previous_audit_id: 'aud_A',
      score: 70,
      previous_score: 76,
      new_findings: [
        { fingerprint: 'fp_a', analyzer: 'SEC_X', severity: 'low', title: 't fp_a' },
        { fingerprint: 'fp_b', analyzer: 'SEC_X', severity: 'high', title: 't fp_b' },
      ],
    });
  });
});
