import assert from 'node:assert/strict';
import { syntheticAudit } from '../../src/audits/synthetic';
import { comparisonBasis } from '../../src/monitoring/basis';
import { withMonitoring } from '../../src/monitoring/comparison';
import { findingFingerprint } from '../../src/monitoring/fingerprint';
import { fingerprintHistories, type SiteAuditPoint } from '../../src/monitoring/site-history';
import { compareAudits } from '../../src/monitoring/comparison';
import type { AuditJson } from '../../src/schemas/audit';
import { syntheticInput } from '../support/synthetic-input';

const base = syntheticAudit(syntheticInput('https://shop.example.com'));
const [a, b] = base.findings;

function point(auditId: string, audit: AuditJson | null, score = 70): SiteAuditPoint {
  return {
    auditId,
    completedAt: new Date('2026-11-23T08:00:00Z'),
    score,
    grade: 'C',
    basis: audit && comparisonBasis({ ...audit, audit_id: auditId }),
  };
}

describe('a site’s history', () => {
  it('keeps one basis entry per fingerprint, with analyzer and severity', () => {
    const twice = { ...base, findings: [a!, { ...a!, id: 'fnd_0000000009' }, b!] };
    const basis = comparisonBasis(twice);
    assert.deepEqual(
      basis.findings.map((f) => f.fingerprint),
      [a!.fingerprint, b!.fingerprint].filter((fp, i, all) => all.indexOf(fp) === i),
    );
    assert.deepEqual(Object.keys(basis.findings[0]!), ['fingerprint', 'analyzer', 'severity']);
    assert.equal(basis.score, base.score);
  });

  it('gives each fingerprint the audits it appeared in, current ones first, and the latest changes with triage', () => {
    const extra = { ...a!, analyzer: 'SEO_NOINDEX', fingerprint: findingFingerprint('SEO_NOINDEX') };
    const newest = point('aud_3', { ...base, findings: [b!, extra] });
    const middle = point('aud_2', { ...base, findings: [a!, b!] });
    const legacy = point('aud_1', null);
    const histories = fingerprintHistories([newest, middle, legacy]);
    const byFp = new Map(histories.map((h) => [h.fingerprint, h]));
    assert.deepEqual(byFp.get(b!.fingerprint)?.seenIn, ['aud_3', 'aud_2']);
    assert.equal(byFp.get(extra.fingerprint)?.current, true);
    assert.equal(byFp.get(a!.fingerprint)?.current, false);
    assert.equal(histories.at(-1)?.fingerprint, a!.fingerprint, 'fixed ones last');

    const changes = compareAudits(newest.basis!, middle.basis!, new Map());
    assert.deepEqual(changes.new, [extra.fingerprint]);
    assert.deepEqual(changes.fixed, [a!.fingerprint]);
    const ignored = compareAudits(
      newest.basis!,
      middle.basis!,
      new Map([[extra.fingerprint, { status: 'ignored', note: null }]]),
    );
    assert.deepEqual(ignored.new, []);
  });

  it('reads the same comparison from bases as the stored audit carries', () => {
    const previous = { ...base, audit_id: 'aud_01PREV000000000000000000000', findings: [a!] };
    const current = withMonitoring({ ...base, findings: [b!] }, comparisonBasis(previous), new Map());
    const fromBases = compareAudits(
      point(current.audit_id, current).basis!,
      point(previous.audit_id, previous).basis!,
      new Map(),
    );
    assert.deepEqual(fromBases.new, current.comparison?.new);
    assert.deepEqual(fromBases.fixed, current.comparison?.fixed);
  });
});
