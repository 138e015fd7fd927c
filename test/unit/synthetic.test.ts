import assert from 'node:assert/strict';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { isBrowserAnalyzerCode } from '../../src/analyzers/browser-analyzers';
import { ANALYZER_CODES } from '../../src/analyzers/catalog';
import { scoreAudit } from '../../src/analyzers/scoring';
import { syntheticAudit, SYNTHETIC_MAX_LISTED_PAGES } from '../../src/audits/synthetic';
import { syntheticInput } from '../support/synthetic-input';
import { findingFingerprint } from '../../src/monitoring/fingerprint';
import { auditJsonSchema, TIERS, type Tier } from '../../src/schemas/audit';

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(auditJsonSchema);

const BUDGET: Record<Tier, number> = { free: 100, pro: 10_000, team: 100_000, enterprise: 1_000_000 };

const input = syntheticInput;

const DOMAINS = Array.from(
  { length: 150 },
  (_, i) =>
    [
      `https://site${i}.example.com`,
      `https://www.shop-${i}.co.uk`,
      `http://legacy${i}.example.org`,
      `https://s${i}.xn--bcher-kva.de:8443`,
    ][i % 4]!,
);

describe('synthetic test-mode audits', () => {
  it('validate against the audit JSON schema for many domains and every tier', () => {
    for (const [i, domain] of DOMAINS.entries()) {
      const tier = TIERS[i % TIERS.length]!;
      const audit = syntheticAudit(input(domain, { tier, workspaceId: `ws_${i % 7}` }));
      assert.ok(validate(audit), `${domain}: ${ajv.errorsText(validate.errors)}`);
      assert.equal(audit.mode, 'test');
      assert.equal(audit.tier, tier);
      assert.equal(audit.domain, domain);
      assert.equal(audit.crawl.page_budget, BUDGET[tier]);
      assert.ok(audit.crawl.pages_crawled >= 1 && audit.crawl.pages_crawled <= BUDGET[tier]);
      assert.ok(audit.crawl.pages.length <= Math.min(SYNTHETIC_MAX_LISTED_PAGES, audit.crawl.pages_crawled));
      assert.equal(audit.crawl.pages[0]!.url, `${domain}/`);
    }
  });

  it('runs the whole catalog and scores it with the real scoring module', () => {
    for (const domain of DOMAINS.slice(0, 40)) {
      const audit = syntheticAudit(input(domain));
      assert.deepEqual(
        audit.analyzers.map((a) => a.code),
        [...ANALYZER_CODES],
      );
      // With the browser stage's lab score, as anyone recomputing from the JSON would.
      const { categories, score, grade } = scoreAudit(audit.analyzers, audit.browser?.performance_score ?? null);
      assert.deepEqual(audit.categories, categories);
      assert.equal(audit.score, score);
      assert.equal(audit.grade, grade);
      // Findings exactly for the analyzers that failed or warned, cited on the audited site.
      const flagged = new Set(
        audit.analyzers.filter((a) => a.status === 'fail' || a.status === 'warn').map((a) => a.code),
      );
      assert.deepEqual(new Set(audit.findings.map((f) => f.analyzer)), flagged);
      const host = new URL(domain).hostname;
      for (const f of audit.findings) {
        assert.ok(f.urls.length > 0);
        for (const u of f.urls) assert.equal(new URL(u).hostname, host, u);
      }
      assert.equal(new Set(audit.findings.map((f) => f.id)).size, audit.findings.length);
    }
  });

  it('is deterministic per (workspace, domain), without Math.random', () => {
    const random = Math.random;
    Math.random = () => {
      throw new Error('Math.random used');
    };
    try {
      const a = syntheticAudit(input('https://example.com'));
      const b = syntheticAudit(input('https://example.com'));
      assert.deepEqual(a, b);
      assert.equal(JSON.stringify(a), JSON.stringify(b));
    } finally {
      Math.random = random;
    }
  });

  it('gives the same HTML findings and analyzers at every tier; the browser stage samples by tier', () => {
    const free = syntheticAudit(input('https://acme.io', { tier: 'free' }));
    const html = (a: typeof free) => ({
      findings: a.findings.filter((f) => !isBrowserAnalyzerCode(f.analyzer)),
      analyzers: a.analyzers.filter((r) => !isBrowserAnalyzerCode(r.code)),
    });
    for (const tier of ['pro', 'team', 'enterprise'] as const) {
      const other = syntheticAudit(input('https://acme.io', { tier }));
      assert.deepEqual(html(other), html(free));
      // A page sampled at both tiers measures the same.
      assert.deepEqual(other.browser!.pages[0], free.browser!.pages[0]);
      assert.ok(other.browser!.pages.length >= free.browser!.pages.length);
    }
  });

  it("gives every finding of an audit a fingerprint of its own, the real analyzers' subjects, for many domains and every tier", () => {
    let multi = 0;
    let withSubject = 0;
    for (const domain of DOMAINS.slice(0, 60)) {
      for (const tier of TIERS) {
        const a = syntheticAudit(input(domain, { tier }));
        const fps = a.findings.map((f) => f.fingerprint);
        assert.equal(new Set(fps).size, fps.length, `${domain} at ${tier}: findings sharing a fingerprint`);
        const codes = a.findings.map((f) => f.analyzer);
        if (new Set(codes).size < codes.length) multi++;
        // An element's finding is named as the real analyzer names it (the same function), not by the site.
        for (const f of a.findings.filter((x) => x.analyzer === 'A11Y_IMG_ALT_MISSING')) {
          const src = /src="([^"]+)"/.exec(f.evidence)![1]!;
          assert.equal(f.fingerprint, findingFingerprint('A11Y_IMG_ALT_MISSING', `img src=${src}`));
          withSubject++;
        }
      }
    }
    assert.ok(multi > 0, 'some audits have several findings of one analyzer (the browser stage levels)');
    assert.ok(withSubject > 0, 'some audits have an image without alt');
  });

  it('differs between domains and between workspaces', () => {
    const a = syntheticAudit(input('https://alpha.example'));
    const b = syntheticAudit(input('https://beta.example'));
    assert.notDeepEqual(a.analyzers, b.analyzers);
    assert.notDeepEqual(
      a.findings.map((f) => f.id),
      b.findings.map((f) => f.id),
    );
    const c = syntheticAudit(input('https://alpha.example', { workspaceId: 'ws_other' }));
    assert.notDeepEqual(a.analyzers, c.analyzers);
  });

  it('spreads scores realistically', () => {
    const scores = DOMAINS.map((d) => syntheticAudit(input(d)).score);
    const min = Math.min(...scores);
    const max = Math.max(...scores);
    assert.ok(min >= 30 && min < 65, `min ${min}`);
    assert.ok(max > 90, `max ${max}`);
    const grades = new Set(DOMAINS.map((d) => syntheticAudit(input(d)).grade));
    assert.ok(grades.size >= 4, [...grades].join(','));
    // DNS/email is sometimes not measured at all.
    const noDns = DOMAINS.filter((d) => syntheticAudit(input(d)).categories.dns_email === undefined);
    assert.ok(noDns.length > 0 && noDns.length < DOMAINS.length / 3, String(noDns.length));
  });
});
