import assert from 'node:assert/strict';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ANALYZER_CODES } from '../../src/analyzers/catalog';
import { scoreAudit } from '../../src/analyzers/scoring';
import { syntheticAudit, SYNTHETIC_MAX_LISTED_PAGES } from '../../src/audits/synthetic';
import { syntheticInput } from '../support/synthetic-input';
import { auditJsonSchema, TIERS, type Tier } from '../../src/schemas/audit';

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(auditJsonSchema);

const BUDGET: Record<Tier, number> = { free: 10, pro: 100, team: 500, enterprise: 2000 };

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
      const { categories, score, grade } = scoreAudit(audit.analyzers);
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

  it('gives the same findings, analyzers and score at every tier', () => {
    const free = syntheticAudit(input('https://acme.io', { tier: 'free' }));
    for (const tier of ['pro', 'team', 'enterprise'] as const) {
      const other = syntheticAudit(input('https://acme.io', { tier }));
      assert.deepEqual(other.findings, free.findings);
      assert.deepEqual(other.analyzers, free.analyzers);
      assert.equal(other.score, free.score);
    }
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
