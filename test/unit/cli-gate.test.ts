import assert from 'node:assert/strict';
import { SEVERITIES as SCHEMA_SEVERITIES, TIERS as SCHEMA_TIERS } from '../../src/schemas/audit';
import { parseArgs, SHOWN, USAGE_ERROR, type AuditCommand } from '../../src/cli/args';
import { evaluateGate, newFindingsOf } from '../../src/cli/gate';
import { SEVERITIES, TIERS, type Finding } from '../../src/cli/types';
import { cliAudit, withNew } from '../support/cli-audits';

function parse(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const result = parseArgs(argv, { writeOut: (t) => out.push(t), writeErr: (t) => err.push(t) });
  return { result, out: out.join(''), err: err.join('') };
}

describe('CLI gate (src/cli/gate.ts)', () => {
  const audit = cliAudit();
  const bySeverity = (severity: Finding['severity']) => audit.findings.find((f) => f.severity === severity)!;

  it('knows every severity and tier of the audit schema, most severe first', () => {
    assert.deepEqual([...SEVERITIES], [...SCHEMA_SEVERITIES]);
    assert.deepEqual([...TIERS], [...SCHEMA_TIERS]);
  });

  it('fails under --fail-under and passes at or above it', () => {
    assert.equal(audit.score, 66);
    assert.deepEqual(evaluateGate(audit, { failUnder: 66 }).passed, true);
    assert.deepEqual(evaluateGate(audit, { failUnder: 0 }).passed, true);
    const failed = evaluateGate(audit, { failUnder: 67 });
    assert.equal(failed.passed, false);
    assert.deepEqual(failed.reasons, ['score 66 is under 67']);
    assert.equal(evaluateGate(audit, {}).passed, true, 'no gate asked: passes');
  });

  it('fails on a new finding at or above --fail-on-new, not on one below it', () => {
    const medium = bySeverity('medium');
    const compared = withNew(audit, [medium]);
    for (const threshold of ['info', 'low', 'medium'] as const) {
      const gate = evaluateGate(compared, { failOnNew: threshold });
      assert.equal(gate.passed, false, threshold);
      assert.deepEqual(
        gate.failingNew.map((f) => f.fingerprint),
        [medium.fingerprint],
      );
      assert.match(gate.reasons[0]!, new RegExp(`^1 new finding at or above ${threshold} since aud_01JPREVIOUS`));
      assert.ok(gate.reasons[0]!.endsWith(medium.analyzer));
    }
    for (const threshold of ['high', 'critical'] as const) {
      const gate = evaluateGate(compared, { failOnNew: threshold });
      assert.equal(gate.passed, true, threshold);
      assert.deepEqual(
        gate.newFindings.map((f) => f.fingerprint),
        [medium.fingerprint],
        'still reported as new',
      );
    }
  });

  it('judges by the severity of each new finding, counting a fingerprint once, and combines both checks', () => {
    const high = bySeverity('high');
    const low = bySeverity('low');
    const twin = { ...high, id: 'fnd_twin' };
    const compared = withNew({ ...audit, findings: [...audit.findings, twin] }, [high, twin, low]);
    const gate = evaluateGate(compared, { failOnNew: 'high', failUnder: 90 });
    assert.equal(gate.passed, false);
    assert.deepEqual(
      gate.failingNew.map((f) => f.id),
      [high.id, 'fnd_twin'],
    );
    assert.equal(gate.reasons.length, 2);
    assert.equal(gate.reasons[0], 'score 66 is under 90');
    assert.match(gate.reasons[1]!, /^1 new finding at or above high/);
    assert.equal(newFindingsOf(compared).length, 3);
  });

  it('passes --fail-on-new when the domain has no previous audit (nothing is new)', () => {
    const gate = evaluateGate(audit, { failOnNew: 'info' });
    assert.equal(gate.passed, true);
    assert.equal(gate.compared, false);
    assert.deepEqual(gate.newFindings, []);
  });

  it('ignores fingerprints the comparison names that are not among the findings (a pruned previous audit)', () => {
    const compared = withNew(audit, []);
    compared.comparison!.new = ['fp_notinthisaudit'];
    assert.equal(evaluateGate(compared, { failOnNew: 'info' }).passed, true);
  });
});

describe('CLI arguments (src/cli/args.ts)', () => {
  it('parses the audit command; a gate or a report format implies --wait; a bare host gets https://', () => {
    const plain = parse('audit', 'example.com').result as AuditCommand;
    assert.equal(plain.domain, 'https://example.com');
    assert.equal(plain.wait, false);
    assert.equal(plain.format, 'text');
    assert.equal(plain.timeoutMs, 1_800_000);
    assert.equal(plain.render, undefined, 'the API’s default when not given');
    const full = parse(
      'audit',
      'http://127.0.0.1:8080',
      '--tier',
      'pro',
      '--render',
      'all',
      '--fail-under',
      '80',
      '--fail-on-new',
      'high',
      '--format',
      'json',
      '--output',
      'out.json',
      '--timeout',
      '60',
    ).result as AuditCommand;
    assert.deepEqual(full, {
      domain: 'http://127.0.0.1:8080',
      tier: 'pro',
      render: 'all',
      wait: true,
      failUnder: 80,
      failOnNew: 'high',
      format: 'json',
      output: 'out.json',
      timeoutMs: 60_000,
    });
    for (const format of ['sarif', 'junit', 'csv'])
      assert.equal((parse('audit', 'a.example', '--format', format).result as AuditCommand).wait, true);
    assert.equal((parse('audit', 'a.example', '--wait').result as AuditCommand).wait, true);
  });

  it('answers bad usage with a message on stderr (the caller exits 2), and --help on stdout', () => {
    for (const argv of [
      ['audit'],
      ['audit', 'a.example', '--fail-under', '101'],
      ['audit', 'a.example', '--fail-under', '8.5'],
      ['audit', 'a.example', '--fail-on-new', 'severe'],
      ['audit', 'a.example', '--format', 'xml'],
      ['audit', 'a.example', '--tier', 'gold'],
      ['audit', 'a.example', '--bogus'],
      ['audit', 'a.example', '--timeout', '0'],
      ['launch'],
      [],
    ]) {
      const { result, err } = parse(...argv);
      assert.equal(result, USAGE_ERROR, argv.join(' '));
      assert.ok(err.length > 0, `a message for ${argv.join(' ')}`);
    }
    const help = parse('audit', '--help');
    assert.equal(help.result, SHOWN);
    assert.match(help.out, /--fail-on-new <severity>/);
  });
});
