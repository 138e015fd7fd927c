import assert from 'node:assert/strict';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { evaluateGate, type GateOptions } from '../../src/cli/gate';
import { renderJunit } from '../../src/cli/junit';
import type { Audit } from '../../src/cli/types';
import { escapeAttribute, escapeText } from '../../src/cli/xml';
import { cliAudit, hostileFinding, withNew } from '../support/cli-audits';

type Attrs = Record<string, string>;
type Child = (Attrs & { '#text'?: string }) | string | undefined;
/** A testcase: its attributes (classname, name, time) and its children. */
type Case = Record<string, string> & {
  failure?: Child;
  error?: Child;
  skipped?: Child;
  'system-out'?: string;
};
type Suite = Record<string, string> & { testcase: Case[] };

/** Characters XML 1.0 has no place for (what a strict parser such as libxml2 refuses). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  // Numeric character references (&#10; in attributes) too, as every XML parser decodes them.
  htmlEntities: true,
  isArray: (name) => name === 'testsuite' || name === 'testcase' || name === 'property',
});

function parse(xml: string): { name: string; tests: string; failures: string; testsuite: Suite[] } {
  const valid = XMLValidator.validate(xml);
  assert.equal(valid, true, JSON.stringify(valid));
  assert.doesNotMatch(xml, NOT_XML);
  assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites '));
  return parser.parse(xml).testsuites;
}

function junitOf(audit: Audit, options: GateOptions = {}) {
  return parse(renderJunit(audit, options, evaluateGate(audit, options)));
}

const failureText = (c: Case) => (typeof c.failure === 'string' ? c.failure : (c.failure?.['#text'] ?? ''));

describe('CLI JUnit report (src/cli/junit.ts)', () => {
  it('is well-formed XML with a testcase per analyzer, failing analyzers failed with their findings', () => {
    const audit = cliAudit();
    const root = junitOf(audit);
    assert.equal(root.testsuite.length, 1, 'no gate asked: no gate suite');
    const suite = root.testsuite[0]!;
    assert.equal(suite.name, audit.domain);
    assert.equal(suite.testcase.length, audit.analyzers.length);
    const failing = audit.analyzers.filter((a) => a.status === 'fail');
    assert.ok(failing.length > 0);
    assert.equal(suite.failures, String(failing.length));
    assert.equal(root.failures, String(failing.length));
    assert.equal(suite.skipped, String(audit.analyzers.filter((a) => a.status === 'not_applicable').length));
    audit.analyzers.forEach((analyzer, i) => {
      const testcase = suite.testcase[i]!;
      assert.equal(testcase.classname, analyzer.category);
      assert.equal(testcase.name, `${analyzer.code}: ${analyzer.title}`);
      assert.equal(testcase.failure !== undefined, analyzer.status === 'fail', analyzer.code);
      assert.equal(testcase.skipped !== undefined, analyzer.status === 'not_applicable', analyzer.code);
      if (analyzer.status !== 'fail') return;
      for (const finding of audit.findings.filter((f) => f.analyzer === analyzer.code)) {
        assert.ok(failureText(testcase).includes(finding.title), `${analyzer.code} lists ${finding.id}`);
        for (const url of finding.urls) assert.ok(failureText(testcase).includes(url));
      }
    });
    const warned = audit.analyzers.findIndex((a) => a.status === 'warn');
    assert.ok(suite.testcase[warned]!['system-out'], 'a warning passes with its findings in system-out');
    const properties = (suite as unknown as { properties: { property: Attrs[] } }).properties.property;
    assert.deepEqual(
      properties.find((p) => p.name === 'score'),
      { name: 'score', value: String(audit.score) },
    );
  });

  it('adds a gate suite whose cases fail as the gate does', () => {
    const audit = cliAudit();
    const fresh = audit.findings.find((f) => f.severity === 'high')!;
    const root = junitOf(withNew(audit, [fresh]), { failUnder: 90, failOnNew: 'medium' });
    const gate = root.testsuite[1]!;
    assert.equal(gate.name, 'gate');
    assert.deepEqual(
      gate.testcase.map((c) => [c.name, c.failure !== undefined]),
      [
        ['score is at least 90', true],
        ['no new finding at or above medium', true],
      ],
    );
    assert.ok(failureText(gate.testcase[1]!).includes(`${fresh.title} (new)`));
    const passing = junitOf(audit, { failUnder: 10, failOnNew: 'critical' }).testsuite[1]!;
    assert.equal(passing.failures, '0');
    assert.ok(passing.testcase.every((c) => c.failure === undefined));
  });

  it('carries hostile text intact: markup, quotes and line breaks escaped, characters XML cannot hold replaced', () => {
    const audit = cliAudit();
    const hostile = hostileFinding(audit.findings[0]!);
    const analyzer = { ...audit.analyzers.find((a) => a.code === hostile.analyzer)!, title: 'A "title"\n<b>&</b>' };
    const root = junitOf({
      ...audit,
      domain: 'https://x.example/?a="1"&b=<2>',
      findings: [hostile],
      analyzers: [analyzer],
    });
    const testcase = root.testsuite[0]!.testcase[0]!;
    assert.equal(testcase.name, `${analyzer.code}: A "title"\n<b>&</b>`, 'a line break in an attribute survives');
    assert.equal(root.testsuite[0]!.name, 'https://x.example/?a="1"&b=<2>');
    const body = failureText(testcase);
    assert.ok(body.includes('Title, with "quotes" & <angle> brackets'));
    assert.ok(body.includes('a NUL \uFFFD, a bell \uFFFD and ]]>'));
    assert.ok(body.includes('<script>alert("x")</script>\uFFFD[31m'));
    assert.ok(body.includes('https://shop.example.com/a,b?q="1"&r=<2>'));
  });

  it('escapes text and attributes', () => {
    assert.equal(escapeText(`a<b>&c"d'e`), `a&lt;b&gt;&amp;c"d'e`);
    assert.equal(escapeAttribute(`a<b>&c"d'e\tf\ng\rh`), 'a&lt;b&gt;&amp;c&quot;d&apos;e&#9;f&#10;g&#13;h');
    assert.equal(
      escapeText('\u0000\u0008\u000b\u000c\u001f\ud800\uffff ok \u{1f600}'),
      '\uFFFD'.repeat(7) + ' ok \u{1f600}',
    );
  });
});
