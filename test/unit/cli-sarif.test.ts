import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import type { Log } from 'sarif';
import { evaluateGate } from '../../src/cli/gate';
import { renderSarif, sitePath } from '../../src/cli/sarif';
import type { Audit } from '../../src/cli/types';
import { cliAudit, hostileFinding, withNew } from '../support/cli-audits';

/**
 * The official SARIF 2.1.0 schema (OASIS, errata 01, JSON Schema draft-04), vendored unchanged in
 * test/fixtures/sarif (its source is noted in test/fixtures/README.md); ajv-draft-04 reads draft-04.
 */
const schemaText = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'sarif', 'sarif-schema-2.1.0.json'));
const schema = JSON.parse(schemaText.toString('utf8')) as object;
const ajv = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

function sarifOf(audit: Audit): Log {
  const text = renderSarif(audit, evaluateGate(audit, {}), 'https://audits.example.net/docs');
  const log = JSON.parse(text) as Log;
  assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
  return log;
}

describe('CLI SARIF report (src/cli/sarif.ts)', () => {
  it('the official 2.1.0 schema, unchanged, refuses what is not SARIF (the validator is live)', () => {
    assert.equal(
      createHash('sha256').update(schemaText).digest('hex'),
      'c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e',
    );
    assert.equal(
      (schema as { id: string }).id,
      'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
    );
    assert.equal(validate({ version: '2.1.0', runs: [{ results: [] }] }), false, 'a run needs its tool');
    assert.equal(validate({ version: '2.0.0', runs: [] }), false);
    assert.equal(
      validate({
        version: '2.1.0',
        runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: { text: 'm' }, level: 'fatal' }] }],
      }),
      false,
    );
  });

  it('is valid SARIF 2.1.0: a rule per analyzer, a result per finding pointing at its rule', () => {
    const audit = cliAudit();
    const log = sarifOf(audit);
    assert.equal(log.version, '2.1.0');
    assert.equal(log.runs.length, 1);
    const run = log.runs[0]!;
    const rules = run.tool.driver.rules!;
    assert.deepEqual(
      rules.map((r) => r.id),
      audit.analyzers.map((a) => a.code),
    );
    assert.equal(run.results!.length, audit.findings.length);
    run.results!.forEach((result, i) => {
      const finding = audit.findings[i]!;
      assert.equal(result.ruleId, finding.analyzer);
      assert.equal(rules[result.ruleIndex!]!.id, finding.analyzer);
      assert.equal(result.properties!.finding_id, finding.id);
    });
    assert.equal(run.properties!.audit_id, audit.audit_id);
    assert.equal(run.automationDetails!.id, 'domain-audit/shop.example.com/');
  });

  it('meets code scanning: a repository-relative location on every result, the same in every run, and levels', () => {
    const log = sarifOf(cliAudit());
    for (const result of log.runs[0]!.results!) {
      assert.equal(result.locations!.length, 1);
      const uri = result.locations![0]!.physicalLocation!.artifactLocation!.uri!;
      assert.equal(uri, 'shop.example.com', 'the site, whatever page the finding lists first');
      for (const related of result.relatedLocations ?? [])
        assert.doesNotMatch(related.physicalLocation!.artifactLocation!.uri!, /^[a-z][a-z0-9+.-]*:/i, 'no URI scheme');
      assert.ok(['error', 'warning', 'note'].includes(result.level!));
    }
    assert.equal(sitePath('http://127.0.0.1:8080/a/b/?q=1'), '127.0.0.1_8080/a/b');
    assert.equal(sitePath('http://[::1]:3000/'), '__1_3000');
    assert.equal(sitePath('https://example.com/'), 'example.com');
  });

  it("fingerprints results by the findings' fingerprints, stable from one audit to the next", () => {
    const audit = cliAudit();
    const first = sarifOf(audit).runs[0]!.results!;
    const again = sarifOf({ ...audit, audit_id: 'aud_01JNEXT0000000000000000000' }).runs[0]!.results!;
    first.forEach((result, i) => {
      assert.equal(result.partialFingerprints!.primaryLocationLineHash, audit.findings[i]!.fingerprint);
      assert.equal(result.fingerprints!['domainAudit/v1'], audit.findings[i]!.fingerprint);
      assert.deepEqual(again[i]!.partialFingerprints, result.partialFingerprints);
    });
  });

  it('marks new and unchanged results against the previous audit, and tags security rules with a severity', () => {
    const audit = cliAudit();
    const fresh = audit.findings[1]!;
    const log = sarifOf(withNew(audit, [fresh]));
    const results = log.runs[0]!.results!;
    assert.equal(results[1]!.baselineState, 'new');
    assert.ok(results.filter((_, i) => i !== 1).every((r) => r.baselineState === 'unchanged'));
    assert.equal(sarifOf(audit).runs[0]!.results![0]!.baselineState, undefined, 'no comparison: no baseline state');
    const securityRule = log.runs[0]!.tool.driver.rules!.find((r) => r.id === 'SEC_HSTS_MISSING')!;
    assert.equal(securityRule.properties!['security-severity'], '8.0');
    assert.deepEqual(securityRule.properties!.tags, ['security']);
    const seoRule = log.runs[0]!.tool.driver.rules!.find((r) => r.id.startsWith('SEO_'))!;
    assert.deepEqual(seoRule.properties!.tags, ['seo']);
    assert.equal(seoRule.properties!['security-severity'], undefined);
  });

  it('stays valid with hostile text and URLs in a finding', () => {
    const audit = cliAudit();
    const hostile = hostileFinding(audit.findings[0]!);
    const log = sarifOf({ ...audit, findings: [hostile, ...audit.findings] });
    const result = log.runs[0]!.results![0]!;
    assert.ok(result.message.text!.includes(hostile.message));
    assert.equal(result.relatedLocations!.length, 2);
    assert.equal(result.relatedLocations![0]!.message!.text, hostile.urls[0]);
  });
});
