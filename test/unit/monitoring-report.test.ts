import assert from 'node:assert/strict';
import { catalogEntry } from '../../src/analyzers/catalog';
import { syntheticAudit } from '../../src/audits/synthetic';
import { withMonitoring } from '../../src/monitoring/comparison';
import { renderAuditReport } from '../../src/reports/pdf';
import type { AuditJson } from '../../src/schemas/audit';
import { extract, flat } from '../support/pdf';
import { syntheticInput } from '../support/synthetic-input';

const GENERATED_AT = new Date('2026-11-23T08:00:00.000Z');

/** Two audits of one site: the second fixed the first's two most severe findings and gained a finding of its own. */
function pair(): { previous: AuditJson; current: AuditJson } {
  const base = syntheticAudit(syntheticInput('https://shop.example.com'));
  const previous: AuditJson = {
    ...base,
    audit_id: 'aud_01PREVIOUS0000000000000000',
    score: base.score - 6,
    categories: { ...base.categories, security: { score: 40, weight: 25 } },
  };
  const fixedCodes = new Set(base.findings.slice(0, 2).map((f) => f.analyzer));
  const kept = base.findings.filter((f) => !fixedCodes.has(f.analyzer));
  const gained = syntheticAudit(syntheticInput('https://other.example.org')).findings.find(
    (f) => !base.findings.some((b) => b.analyzer === f.analyzer),
  )!;
  const current = withMonitoring({ ...base, findings: [gained, ...kept] }, previous, new Map());
  return { previous, current };
}

describe('PDF report: changes since the previous audit', () => {
  it('prints score and category deltas and names new and fixed issues by their catalog titles', async () => {
    const { previous, current } = pair();
    const c = current.comparison!;
    assert.equal(c.new.length, 1);
    assert.ok(c.fixed.length >= 1);
    const pdf = await renderAuditReport(current, null, {
      generatedAt: GENERATED_AT,
      previousFindings: previous.findings,
    });
    const text = flat((await extract(pdf)).text);
    assert.ok(text.includes('Changes since the previous audit'));
    assert.ok(
      text.includes(`the score rose by 6 points, from ${previous.score} to ${current.score}`),
      text.slice(0, 2000),
    );
    const security = current.categories.security!.score - 40;
    assert.ok(text.includes(`Security ${security > 0 ? '+' : '−'}${Math.abs(security)}`));
    assert.ok(text.includes('New issues (1)'));
    assert.ok(text.includes(catalogEntry(current.findings[0]!.analyzer).title));
    assert.ok(text.includes(`Fixed issues (${c.fixed.length})`));
    for (const f of previous.findings.slice(0, 2)) assert.ok(text.includes(catalogEntry(f.analyzer).title), f.analyzer);
    for (const fp of [...c.new, ...c.fixed]) assert.ok(text.includes(fp), fp);
  });

  it('names site-level fixed issues from the catalog when the previous audit is gone, and has no section without a comparison', async () => {
    const { previous, current } = pair();
    const orphan = flat((await extract(await renderAuditReport(current, null, { generatedAt: GENERATED_AT }))).text);
    for (const f of previous.findings.slice(0, 2))
      assert.ok(orphan.includes(catalogEntry(f.analyzer).title), f.analyzer);
    const first = { ...current };
    delete first.comparison;
    const plain = flat((await extract(await renderAuditReport(first, null, { generatedAt: GENERATED_AT }))).text);
    assert.ok(!plain.includes('Changes since the previous audit'));
  });
});
