import type { GateOptions, GateResult } from './gate';
import type { AnalyzerResult, Audit, Finding } from './types';
import { element, text } from './xml';

/**
 * The audit as JUnit XML (docs/decisions.md, "Customer CLI"), the shape Jenkins, GitLab, Azure
 * Pipelines and the GitHub test-report actions render: one testsuite for the audit with a testcase
 * per analyzer (classname: its category), a `failure` for an analyzer that failed (its findings in
 * the body), `error` for one that could not run, `skipped` for one that did not apply; a warning
 * passes with its findings in system-out. A second testsuite holds the gate's checks when any was asked.
 */

function findingText(finding: Finding, isNew: boolean): string {
  const lines = [
    `[${finding.severity}] ${finding.title}${isNew ? ' (new)' : ''}`,
    finding.message,
    `Recommendation: ${finding.recommendation}`,
  ];
  if (finding.evidence) lines.push(`Evidence: ${finding.evidence}`);
  const count = finding.count ?? finding.urls.length;
  if (finding.urls.length > 0) lines.push(`URLs (${count}):`, ...finding.urls.map((url) => `  ${url}`));
  if (count > finding.urls.length) lines.push(`  … and ${count - finding.urls.length} more`);
  lines.push(`Fingerprint: ${finding.fingerprint}`);
  return lines.join('\n');
}

function analyzerCase(analyzer: AnalyzerResult, findings: Finding[], fresh: ReadonlySet<string>): string {
  const body = findings.map((f) => findingText(f, fresh.has(f.fingerprint))).join('\n\n');
  const attributes = { classname: analyzer.category, name: `${analyzer.code}: ${analyzer.title}`, time: '0' };
  const count = `${findings.length} finding${findings.length === 1 ? '' : 's'}`;
  switch (analyzer.status) {
    case 'fail':
      return element('testcase', attributes, [
        element('failure', { message: `${analyzer.title} (${analyzer.severity}): ${count}`, type: analyzer.severity }, [
          text(body || analyzer.title),
        ]),
      ]);
    case 'error':
      return element('testcase', attributes, [
        element('error', { message: `${analyzer.code} could not run`, type: 'analyzer_error' }),
      ]);
    case 'not_applicable':
      return element('testcase', attributes, [element('skipped', { message: 'not applicable to this site' })]);
    default:
      return element('testcase', attributes, body ? [element('system-out', {}, [text(body)])] : []);
  }
}

interface Suite {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  xml: string;
}

function gateCases(audit: Audit, options: GateOptions, gate: GateResult): Array<{ failed: boolean; xml: string }> {
  const cases: Array<{ failed: boolean; xml: string }> = [];
  const testcase = (name: string, failure: { message: string; body: string } | null) => ({
    failed: failure !== null,
    xml: element(
      'testcase',
      { classname: 'gate', name, time: '0' },
      failure ? [element('failure', { message: failure.message, type: 'gate' }, [text(failure.body)])] : [],
    ),
  });
  if (options.failUnder !== undefined) {
    const failed = audit.score < options.failUnder;
    const message = `score ${audit.score} is under ${options.failUnder}`;
    cases.push(
      testcase(
        `score is at least ${options.failUnder}`,
        failed ? { message, body: `${message} (${audit.grade})` } : null,
      ),
    );
  }
  if (options.failOnNew !== undefined) {
    const failing = gate.failingNew;
    const message = `${new Set(failing.map((f) => f.fingerprint)).size} new since ${audit.comparison?.previous_audit_id}`;
    const body = failing.map((f) => findingText(f, true)).join('\n\n');
    cases.push(testcase(`no new finding at or above ${options.failOnNew}`, failing.length ? { message, body } : null));
  }
  return cases;
}

function suite(
  attributes: { name: string; time: string; timestamp: string },
  counts: Omit<Suite, 'xml'>,
  children: string[],
): Suite {
  return { ...counts, xml: element('testsuite', { ...attributes, ...counts }, children) };
}

export function renderJunit(audit: Audit, options: GateOptions, gate: GateResult): string {
  const fresh = new Set(gate.newFindings.map((f) => f.fingerprint));
  const byAnalyzer = new Map<string, Finding[]>();
  for (const f of audit.findings) byAnalyzer.set(f.analyzer, [...(byAnalyzer.get(f.analyzer) ?? []), f]);
  const count = (status: AnalyzerResult['status']) => audit.analyzers.filter((a) => a.status === status).length;
  const time = ((Date.parse(audit.completed_at) - Date.parse(audit.started_at)) / 1000).toFixed(3);
  // JUnit's timestamp is ISO 8601 without a zone (the XSD's pattern); ours are UTC.
  const timestamp = audit.completed_at.replace(/(\.\d+)?Z$/, '');
  const properties = element(
    'properties',
    {},
    Object.entries({
      audit_id: audit.audit_id,
      score: audit.score,
      grade: audit.grade,
      mode: audit.mode,
      tier: audit.tier,
    }).map(([name, value]) => element('property', { name, value })),
  );
  const suites = [
    suite(
      { name: audit.domain, time, timestamp },
      {
        tests: audit.analyzers.length,
        failures: count('fail'),
        errors: count('error'),
        skipped: count('not_applicable'),
      },
      [properties, ...audit.analyzers.map((a) => analyzerCase(a, byAnalyzer.get(a.code) ?? [], fresh))],
    ),
  ];
  const checks = gateCases(audit, options, gate);
  if (checks.length > 0)
    suites.push(
      suite(
        { name: 'gate', time: '0', timestamp },
        { tests: checks.length, failures: checks.filter((c) => c.failed).length, errors: 0, skipped: 0 },
        checks.map((c) => c.xml),
      ),
    );
  const total = (key: 'tests' | 'failures' | 'errors' | 'skipped') => suites.reduce((sum, s) => sum + s[key], 0);
  const root = element(
    'testsuites',
    {
      name: `Domain audit of ${audit.domain}`,
      tests: total('tests'),
      failures: total('failures'),
      errors: total('errors'),
      skipped: total('skipped'),
      time,
    },
    suites.map((s) => s.xml),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
}
