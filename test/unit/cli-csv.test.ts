import assert from 'node:assert/strict';
import { FINDING_CSV_COLUMNS } from '../../src/presenters/crawl-exports';
import { FINDING_COLUMNS, renderCsv } from '../../src/cli/csv';
import { cliAudit, hostileFinding } from '../support/cli-audits';
import { parseCsv } from '../support/csv';

describe('CLI CSV report (src/cli/csv.ts)', () => {
  it("has the columns of the service's findings.csv, a row per finding and URL, CRLF line ends", () => {
    assert.deepEqual([...FINDING_COLUMNS], [...FINDING_CSV_COLUMNS]);
    const audit = cliAudit();
    const text = renderCsv(audit);
    assert.ok(text.endsWith('\r\n'));
    const [header, ...rows] = parseCsv(text);
    assert.deepEqual(header, [...FINDING_CSV_COLUMNS]);
    const expected = audit.findings.reduce((n, f) => n + Math.max(1, f.urls.length), 0);
    assert.equal(rows.length, expected);
    const first = audit.findings[0]!;
    assert.deepEqual(rows[0], [
      first.id,
      first.analyzer,
      first.category,
      first.severity,
      first.title,
      String(first.count),
      first.urls[0],
      '',
      '',
    ]);
  });

  it('quotes commas, quotes and line breaks, escapes formulas, and leaves a finding without URLs one row', () => {
    const audit = cliAudit();
    const hostile = hostileFinding(audit.findings[0]!);
    const text = renderCsv({
      ...audit,
      findings: [
        { ...hostile, title: 'Line\nbreak, "quoted"' },
        { ...hostile, id: 'fnd_formula', title: '=SUM(A1:A2)', urls: [], count: 0 },
        { ...hostile, id: 'fnd_minus', title: '-1 pages', urls: ['@home'], count: 1 },
      ],
    });
    assert.ok(text.includes('"Line\nbreak, ""quoted"""'), 'a line break and quotes inside one quoted cell');
    assert.ok(text.includes('"https://shop.example.com/a,b?q=""1""&r=<2>"'));
    const rows = parseCsv(text).slice(1);
    assert.deepEqual(
      rows.map((r) => [r[0], r[4], r[5], r[6]]),
      [
        ['fnd_hostile', 'Line\nbreak, "quoted"', '7', 'https://shop.example.com/a,b?q="1"&r=<2>'],
        ['fnd_hostile', 'Line\nbreak, "quoted"', '7', 'https://shop.example.com/ünïcode path'],
        ['fnd_formula', "'=SUM(A1:A2)", '0', ''],
        ['fnd_minus', "'-1 pages", '1', "'@home"],
      ],
    );
  });
});
