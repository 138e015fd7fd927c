import assert from 'node:assert/strict';
import { syntheticAudit } from '../../src/audits/synthetic';
import { assertValidAuditJson } from '../../src/audits/validate-audit';
import { compareAudits, withMonitoring, type PreviousAudit, type Triage } from '../../src/monitoring/comparison';
import { findingFingerprint } from '../../src/monitoring/fingerprint';
import type { AuditJson, Finding } from '../../src/schemas/audit';
import { syntheticInput } from '../support/synthetic-input';

const base = syntheticAudit(syntheticInput('https://shop.example.com'));

function finding(analyzer: string, subject = '', over: Partial<Finding> = {}): Finding {
  const template = base.findings[0]!;
  return { ...template, analyzer, fingerprint: findingFingerprint(analyzer, subject), ...over };
}

function audit(over: Partial<AuditJson>): AuditJson {
  return { ...base, ...over };
}

function previousOf(a: AuditJson): PreviousAudit {
  return { audit_id: a.audit_id, score: a.score, categories: a.categories, findings: a.findings };
}

const A = finding('SEC_HSTS_MISSING');
const B = finding('SEC_CSP_MISSING');
const C = finding('SEC_COOKIE_INSECURE', 'sid secure');
const D = finding('SEO_TITLE_MISSING');
const E = finding('A11Y_IMG_ALT_MISSING');

const previous = audit({
  audit_id: 'aud_01PREV000000000000000000000',
  score: 71,
  categories: {
    security: { score: 60, weight: 25 },
    seo: { score: 80, weight: 25 },
    performance: { score: 90, weight: 15 },
  },
  findings: [A, B, C, D],
});
const current = audit({
  score: 78,
  categories: {
    security: { score: 75, weight: 25 },
    seo: { score: 70, weight: 25 },
    accessibility: { score: 95, weight: 15 },
  },
  // B fixed; E new; A listed twice (two groups of one analyzer) counts once.
  findings: [A, { ...A, id: 'fnd_0000000002' }, C, D, E],
});

describe('comparison with the previous audit', () => {
  it('reports score and category deltas, new and fixed fingerprints and the unchanged count', () => {
    const c = compareAudits(current, previousOf(previous), new Map());
    assert.deepEqual(c, {
      previous_audit_id: 'aud_01PREV000000000000000000000',
      previous_score: 71,
      score_delta: 7,
      categories: { security: 15, seo: -10 },
      new: [E.fingerprint],
      fixed: [B.fingerprint],
      unchanged: 3,
    });
  });

  it('never counts ignored or accepted fingerprints as new; open ones still count', () => {
    const F = finding('SEO_NOINDEX');
    const G = finding('PERF_TTFB_SLOW');
    const now = audit({ ...current, findings: [...current.findings, F, G] });
    const triage = new Map<string, Triage>([
      [E.fingerprint, { status: 'ignored', note: 'Decorative images, tracked elsewhere' }],
      [F.fingerprint, { status: 'accepted', note: null }],
      [G.fingerprint, { status: 'open', note: 'look at it' }],
    ]);
    const c = compareAudits(now, previousOf(previous), triage);
    assert.deepEqual(c.new, [G.fingerprint]);
    assert.deepEqual(c.fixed, [B.fingerprint]);
    assert.equal(c.unchanged, 3);
  });

  it('treats findings of an audit stored before fingerprints as site-level findings of their analyzer', () => {
    const old = previousOf(previous);
    const legacy: PreviousAudit = { ...old, findings: old.findings.map((f) => ({ analyzer: f.analyzer })) };
    const c = compareAudits(current, legacy, new Map());
    // The cookie finding had a subject, so the legacy audit cannot match it: it is new, the old one fixed.
    assert.deepEqual(c.new, [C.fingerprint, E.fingerprint]);
    assert.deepEqual(c.fixed, [findingFingerprint('SEC_CSP_MISSING'), findingFingerprint('SEC_COOKIE_INSECURE')]);
  });

  it('carries triage on findings and the comparison on the audit, score untouched, still valid', () => {
    const triage = new Map<string, Triage>([[A.fingerprint, { status: 'accepted', note: 'HSTS after the migration' }]]);
    const out = withMonitoring(current, previousOf(previous), triage);
    assert.equal(out.score, current.score);
    assert.deepEqual(
      out.findings.filter((f) => f.triage).map((f) => [f.id, f.triage]),
      current.findings
        .filter((f) => f.fingerprint === A.fingerprint)
        .map((f) => [f.id, { status: 'accepted', note: 'HSTS after the migration' }]),
    );
    assert.equal(out.comparison?.previous_audit_id, previous.audit_id);
    assert.equal(Object.keys(out).at(-1), 'comparison');
    assertValidAuditJson(out);
    assert.equal(current.comparison, undefined, 'the input is not changed');
  });

  it('made again (after the browser stage) follows the triage of now: a removed one goes', () => {
    const triage = new Map<string, Triage>([[A.fingerprint, { status: 'ignored', note: 'x' }]]);
    const once = withMonitoring(current, previousOf(previous), triage);
    const again = withMonitoring(once, previousOf(previous), new Map());
    assert.equal(
      again.findings.some((f) => f.triage),
      false,
    );
    assert.deepEqual(again.comparison, compareAudits(current, previousOf(previous), new Map()));
  });

  it('adds no comparison to the first audit of a domain', () => {
    const out = withMonitoring(base, null, new Map());
    assert.equal('comparison' in out, false);
    assert.deepEqual(out.findings, base.findings);
  });
});
