import assert from 'node:assert/strict';
import { syntheticAudit } from '../../src/audits/synthetic';
import { SYNTHETIC_BROWSER_SAMPLE } from '../../src/audits/synthetic/browser';
import { TIERS } from '../../src/schemas/audit';
import { syntheticInput } from '../support/synthetic-input';

/** Test-mode audits carry a browser stage, merged by the same code as live ones. */

const DOMAINS = Array.from({ length: 60 }, (_, i) => `https://site${i}.example.com`);

describe('synthetic audits: browser stage', () => {
  it('samples the home page first, then as many listed pages as the tier samples', () => {
    for (const [i, domain] of DOMAINS.entries()) {
      const tier = TIERS[i % TIERS.length]!;
      const audit = syntheticAudit(syntheticInput(domain, { tier }));
      const b = audit.browser!;
      assert.equal(b.pages[0]!.url, `${domain}/`);
      assert.equal(b.pages[0]!.status, 'measured');
      assert.equal(b.performance_basis, 'lab');
      const eligible = audit.crawl.pages.filter((p) => p.status_code === 200 || p.url === `${domain}/`).length;
      assert.equal(b.pages.length, Math.min(SYNTHETIC_BROWSER_SAMPLE[tier], eligible), `${domain} ${tier}`);
      assert.equal(new Set(b.pages.map((p) => p.url)).size, b.pages.length);
      assert.equal(audit.categories.performance!.score, b.performance_score);
    }
  });

  it("findings agree with the measured metrics (LCP's poor pages are exactly the failing finding's)", () => {
    let failing = 0;
    for (const domain of DOMAINS) {
      const audit = syntheticAudit(syntheticInput(domain, { tier: 'team' }));
      const poor = audit.browser!.pages.flatMap((p) => ('lcp_ms' in p && p.lcp_ms > 4000 ? [p.url] : []));
      const finding = audit.findings.find((f) => f.analyzer === 'PERF_LCP_SLOW' && f.message.includes('poor'));
      assert.deepEqual(finding?.urls ?? [], poor, domain);
      const lcp = audit.analyzers.find((a) => a.code === 'PERF_LCP_SLOW')!;
      assert.equal(lcp.status === 'fail', poor.length > 0, domain);
      if (poor.length > 0) failing++;
    }
    assert.ok(failing > 5 && failing < DOMAINS.length - 5, `LCP fails on ${failing} of ${DOMAINS.length} sites`);
  });

  it('spreads lab performance scores as real sites do (some poor, some good)', () => {
    const scores = DOMAINS.map((d) => syntheticAudit(syntheticInput(d)).browser!.performance_score!);
    assert.ok(Math.min(...scores) < 50, `min ${Math.min(...scores)}`);
    assert.ok(Math.max(...scores) >= 90, `max ${Math.max(...scores)}`);
  });
});
