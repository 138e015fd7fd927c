import assert from 'node:assert/strict';
import { catalogEntry } from '../../src/analyzers/catalog';
import { syntheticAudit } from '../../src/audits/synthetic';
import { assertValidAuditJson } from '../../src/audits/validate-audit';
import { BrandingError, NEUTRAL_BRANDING, validateBranding, type Branding } from '../../src/reports/branding';
import { checkLogoEmbeds, displayDomain, renderAuditReport, SAMPLE_NOTICE, topIssues } from '../../src/reports/pdf';
import type { AuditJson } from '../../src/schemas/audit';
import { extract, flat, squash, tinyPng, type Extracted } from '../support/pdf';
import { syntheticInput } from '../support/synthetic-input';

// ── helpers ────────────────────────────────────────────────────────────────────────────────────

const input = (domain: string) =>
  syntheticInput(domain, { auditId: 'aud_01JREPORT000000000000000000', workspaceId: 'ws_report_test' });

const GENERATED_AT = new Date('2026-11-21T12:00:00.000Z');
const ACME: Branding = validateBranding({
  displayName: 'Acme Digital',
  logo: tinyPng(),
  primaryColor: '#E4572E',
  footerText: 'Confidential — prepared by Acme Digital for its client',
  contactLine: 'hello@acme.example · +44 20 7946 0000',
});

// A domain whose synthetic audit has findings in several categories and severities.
const audit = syntheticAudit(input('https://www.shop-7.co.uk'));

describe('PDF audit report', function () {
  this.timeout(30_000);

  let branded: Buffer;
  let brandedText: Extracted;
  let unbranded: Buffer;
  let unbrandedText: Extracted;

  before(async () => {
    assert.ok(audit.findings.length >= 5, 'the synthetic audit should have findings to render');
    branded = await renderAuditReport(audit, ACME, { generatedAt: GENERATED_AT });
    brandedText = await extract(branded);
    unbranded = await renderAuditReport(audit, null, { generatedAt: GENERATED_AT });
    unbrandedText = await extract(unbranded);
  });

  it('is a PDF with the domain, score, grade and every section', () => {
    assert.equal(branded.subarray(0, 5).toString('latin1'), '%PDF-');
    for (const r of [brandedText, unbrandedText]) {
      const t = flat(r.text);
      assert.ok(t.includes('www.shop-7.co.uk'));
      assert.ok(t.includes(String(audit.score)), 'score');
      assert.ok(t.includes(`Grade ${audit.grade}`), 'grade');
      for (const section of ['Contents', 'Summary', 'Findings', 'Appendix', 'Top five issues', 'Category scores']) {
        assert.ok(t.includes(section), `section ${section}`);
      }
      assert.ok(t.includes('21 November 2026'), 'report date');
    }
  });

  it('lists findings with what, where, why and how to fix', () => {
    const t = flat(brandedText.text);
    const titles = [...new Set(audit.findings.map((f) => f.title))];
    for (const title of titles) assert.ok(t.includes(title), `finding title ${title}`);
    const all = squash(brandedText.text);
    for (const f of audit.findings.slice(0, 5)) {
      // Code marked with backticks is set in monospace, without the backticks.
      assert.ok(all.includes(squash(f.recommendation.replace(/`/g, ''))), `recommendation of ${f.analyzer}`);
      assert.ok(all.includes(squash(catalogEntry(f.analyzer).why)), `why of ${f.analyzer}`);
      assert.ok(t.includes(f.urls[0]!), `a url of ${f.analyzer}`);
    }
    for (const label of ['What we found:', 'Where:', 'Why it matters:', 'How to fix:'])
      assert.ok(t.includes(label), label);
  });

  it('summarises the five most severe issues and the counts by severity', () => {
    const t = flat(brandedText.text);
    const top = topIssues(audit.findings, 5);
    assert.ok(top.length > 0);
    for (const f of top) assert.ok(t.includes(f.title));
    for (const label of ['Critical', 'High', 'Medium', 'Low', 'Info']) assert.ok(t.includes(label), label);
  });

  it('has an appendix with every analyzer and its status', () => {
    const t = flat(brandedText.text);
    const appendix = t.slice(t.lastIndexOf('Appendix: checks run'));
    for (const a of audit.analyzers) assert.ok(appendix.includes(a.code), `analyzer ${a.code} in the appendix`);
    assert.ok(appendix.includes('Pass'));
    assert.ok(appendix.includes('Not applicable') || audit.analyzers.every((a) => a.status !== 'not_applicable'));
  });

  it('numbers its pages "Page N of M" and its contents point at real pages', () => {
    const m = brandedText.pages;
    assert.ok(m >= 5, `pages: ${m}`);
    const t = flat(brandedText.text);
    for (let n = 1; n <= m; n++) assert.ok(t.includes(`Page ${n} of ${m}`), `Page ${n} of ${m}`);
    const contents = t.slice(t.indexOf('Contents'), t.indexOf('Page 2 of'));
    const summaryPage = /Summary[ .…]*?(\d+)/.exec(contents);
    assert.ok(summaryPage, `contents: ${contents}`);
    assert.equal(summaryPage[1], '3');
    assert.match(contents, /Appendix: checks run[ .…]*?\d+/);
  });

  it('is white-label: the agency is named and our product is not', () => {
    const t = flat(brandedText.text);
    assert.ok(t.includes('Acme Digital'));
    assert.ok(t.includes('Confidential — prepared by Acme Digital for its client'), 'footer text');
    assert.ok(t.includes('hello@acme.example'), 'contact line');
    assert.equal(brandedText.info['Title'], 'Website audit: www.shop-7.co.uk');
    assert.equal(brandedText.info['Author'], 'Acme Digital');
    assert.equal(brandedText.info['Creator'], 'Acme Digital');
    assert.equal(brandedText.info['Producer'], 'Acme Digital');
    for (const [text, info, bytes] of [
      [brandedText.text, brandedText.info, branded],
      [unbrandedText.text, unbrandedText.info, unbranded],
    ] as const) {
      assert.ok(!/domain audit/i.test(text), 'product name in the text');
      assert.ok(!/domain audit/i.test(JSON.stringify(info)), 'product name in the metadata');
      assert.ok(!/pdfkit/i.test(JSON.stringify(info)), 'library name in the metadata');
      assert.ok(!bytes.includes('Domain Audit'), 'product name anywhere in the file');
    }
  });

  it('keeps names with XML or PDF special characters intact in the metadata', async () => {
    const odd = validateBranding({ displayName: 'Smith & Jones <Web> (UK) \\ Ltd', primaryColor: '#123456' });
    const pdf = await renderAuditReport(audit, odd, { generatedAt: GENERATED_AT });
    const r = await extract(pdf);
    assert.equal(r.info['Author'], 'Smith & Jones <Web> (UK) \\ Ltd');
    assert.ok(flat(r.text).includes('Smith & Jones <Web> (UK) \\ Ltd'));
    assert.ok(!pdf.includes('<x:xmpmeta'), 'no XMP packet (pdfkit does not escape it)');
  });

  it('uses a neutral name and look without branding', () => {
    const t = flat(unbrandedText.text);
    assert.ok(!t.includes('Acme'));
    assert.equal(unbrandedText.info['Author'], NEUTRAL_BRANDING.displayName);
    assert.equal(unbrandedText.info['Title'], 'Website audit: www.shop-7.co.uk');
    assert.ok(t.includes(`Page 1 of ${unbrandedText.pages}`));
  });

  it('embeds its fonts', () => {
    // Subset TrueType fonts embedded as FontFile2 streams; no reliance on the viewer's fonts.
    const raw = branded.toString('latin1');
    assert.ok(raw.includes('/FontFile2'), 'embedded font program');
    assert.ok(raw.includes('DejaVuSans'), 'DejaVu Sans');
    assert.ok(!/\/BaseFont \/(Helvetica|Times|Courier)/.test(raw), 'no standard (non-embedded) fonts');
  });

  it('is deterministic for the same input and generatedAt', async () => {
    const again = await renderAuditReport(audit, ACME, { generatedAt: GENERATED_AT });
    assert.ok(again.equals(branded));
    assert.equal(brandedText.info['CreationDate'] !== undefined, true);
    assert.match(String(brandedText.info['CreationDate']), /20261121120000/);
  });

  it('shows an IDN domain in Unicode', async () => {
    const idn = syntheticAudit(input('https://xn--bcher-kva.de'));
    assert.equal(idn.domain, 'https://xn--bcher-kva.de');
    const pdf = await renderAuditReport(idn, ACME, { generatedAt: GENERATED_AT });
    const r = await extract(pdf);
    const t = flat(r.text);
    assert.ok(t.includes('bücher.de'), 'Unicode domain in the text');
    assert.ok(t.includes('https://bücher.de/'), 'URLs of findings shown in Unicode');
    // Messages and evidence quote DNS names and headers as they are; the URLs listed are for people.
    assert.ok(!t.includes('• https://xn--'), 'affected URLs not shown in punycode');
    assert.ok(
      t.startsWith('Acme Digital Website audit bücher.de') || t.includes('Website audit bücher.de'),
      'cover shows the Unicode domain',
    );
    assert.equal(r.info['Title'], 'Website audit: bücher.de');
    assert.deepEqual(displayDomain('https://xn--r8jz45g.xn--zckzah'), {
      unicode: '例え.テスト',
      ascii: 'xn--r8jz45g.xn--zckzah',
    });
    assert.deepEqual(displayDomain('https://s1.xn--bcher-kva.de:8443'), {
      unicode: 's1.bücher.de:8443',
      ascii: 's1.xn--bcher-kva.de:8443',
    });
  });

  it('shows a CJK domain in Unicode when a CJK font is available, else in its ASCII form', async () => {
    const cjk = syntheticAudit(input('https://xn--r8jz45g.xn--zckzah'));
    const pdf = await renderAuditReport(cjk, null, { generatedAt: GENERATED_AT });
    const r = await extract(pdf);
    assert.equal(r.info['Title'], 'Website audit: 例え.テスト');
    const t = flat(r.text);
    assert.ok(
      t.includes('例え.テスト') || t.includes('xn--r8jz45g.xn--zckzah'),
      'domain shown, never as missing glyphs',
    );
  });

  // How long it takes is measured by `npm run bench:report` ("500 findings"), not bounded here.
  it('renders an audit with 500 findings, every one of them', async () => {
    const big = manyFindings(audit, 500);
    assertValidAuditJson(big);
    const r = await extract(await renderAuditReport(big, ACME, { generatedAt: GENERATED_AT }));
    assert.ok(r.pages > 100, `pages: ${r.pages}`);
    const text = flat(r.text);
    assert.ok(text.includes('/p0') && text.includes('/p499'), 'the first and the last finding are listed');
  });

  it('renders an audit with no findings', async () => {
    const clean: AuditJson = { ...audit, findings: [] };
    const r = await extract(await renderAuditReport(clean, null, { generatedAt: GENERATED_AT }));
    assert.ok(flat(r.text).includes('No issues were found.'));
  });
});

describe('branding validation', () => {
  it('accepts a valid branding and normalises it', () => {
    const b = validateBranding({
      displayName: '  Acme Digital ',
      primaryColor: '#AABBCC',
      footerText: '',
      contactLine: undefined,
    });
    assert.deepEqual(b, { displayName: 'Acme Digital', primaryColor: '#aabbcc' });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
    assert.equal(validateBranding({ displayName: 'A', primaryColor: '#000000', logo: jpeg }).logo, jpeg);
  });

  const cases: [string, unknown, RegExp][] = [
    ['not an object', 'Acme', /branding\.\(root\): must be an object/],
    ['missing name', { primaryColor: '#000000' }, /branding\.displayName: is required/],
    ['empty name', { displayName: '   ', primaryColor: '#000000' }, /branding\.displayName: must not be empty/],
    [
      'long name',
      { displayName: 'x'.repeat(81), primaryColor: '#000000' },
      /branding\.displayName: must be at most 80/,
    ],
    [
      'name with a newline',
      { displayName: 'Acme\nDigital', primaryColor: '#000000' },
      /branding\.displayName: must not contain control/,
    ],
    ['missing colour', { displayName: 'Acme' }, /branding\.primaryColor: is required/],
    ['bad colour', { displayName: 'Acme', primaryColor: 'red' }, /branding\.primaryColor: must be a colour as #rrggbb/],
    ['short colour', { displayName: 'Acme', primaryColor: '#fff' }, /branding\.primaryColor/],
    [
      'logo not a buffer',
      { displayName: 'Acme', primaryColor: '#000000', logo: 'logo.png' },
      /branding\.logo: must be a Buffer/,
    ],
    [
      'logo not an image',
      { displayName: 'Acme', primaryColor: '#000000', logo: Buffer.from('GIF89a') },
      /branding\.logo: must be a PNG or JPEG/,
    ],
    [
      'logo too big',
      { displayName: 'Acme', primaryColor: '#000000', logo: Buffer.concat([tinyPng(), Buffer.alloc(40 * 1024)]) },
      /branding\.logo: must be at most 40960 bytes/,
    ],
    [
      'logo with too many pixels',
      { displayName: 'Acme', primaryColor: '#000000', logo: pngHeader(5000, 10) },
      /branding\.logo: must be at most 4096×4096 pixels, got 5000×10/,
    ],
    [
      'footer not a string',
      { displayName: 'Acme', primaryColor: '#000000', footerText: 42 },
      /branding\.footerText: must be a string/,
    ],
    [
      'unknown field',
      { displayName: 'Acme', primaryColor: '#000000', secondaryColor: '#ffffff' },
      /branding\.secondaryColor: is not a known branding field/,
    ],
  ];
  for (const [name, value, message] of cases) {
    it(`rejects ${name}`, () => {
      assert.throws(
        () => validateBranding(value),
        (err: unknown) => {
          assert.ok(err instanceof BrandingError);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  it('embeds a real logo, and refuses one that only looks like a PNG', async () => {
    await checkLogoEmbeds(tinyPng(200, 60));
    await assert.rejects(checkLogoEmbeds(pngHeader(8, 8)), (err: unknown) => {
      assert.ok(err instanceof BrandingError);
      assert.match(err.message, /branding\.logo: could not be read as an image/);
      return true;
    });
  });
});

/** A PNG signature and IHDR claiming w×h, and nothing else: passes the signature check only. */
function pngHeader(w: number, h: number): Buffer {
  const png = tinyPng(1, 1).subarray(0, 33);
  png.writeUInt32BE(w, 16);
  png.writeUInt32BE(h, 20);
  return png;
}

describe('test-mode sample report', function () {
  this.timeout(30_000);

  it('has the sections of a real report, built from the synthetic audit, and says it is a sample on every page', async () => {
    const real = await extract(await renderAuditReport(audit, ACME, { generatedAt: GENERATED_AT }));
    const sample = await extract(await renderAuditReport(audit, ACME, { generatedAt: GENERATED_AT, sample: true }));
    const text = flat(sample.text);
    assert.ok(text.includes(SAMPLE_NOTICE), 'cover notice');
    assert.equal(sample.pages, real.pages);
    assert.equal(text.split('SAMPLE REPORT — test mode').length - 1, sample.pages, 'the footer of every page');
    assert.equal(text.split(ACME.footerText!).length - 1, sample.pages, 'the branding footer too');
    for (const section of [
      'Contents',
      'Summary',
      'Category scores',
      'Top five issues',
      'Findings',
      'Appendix: checks run',
    ]) {
      assert.ok(text.includes(section), `section ${section}`);
    }
    for (const f of audit.findings) assert.ok(text.includes(f.title), f.title);
    assert.ok(!flat(real.text).includes('SAMPLE'), 'a live report carries no sample notice');
  });
});

/** The audit with its findings repeated (fresh ids, varied URLs) up to `n`; still valid against the schema. */
function manyFindings(base: AuditJson, n: number): AuditJson {
  const findings = Array.from({ length: n }, (_, i) => {
    const f = base.findings[i % base.findings.length]!;
    return {
      ...f,
      id: `fnd_${i.toString(36)}x`,
      urls: f.urls.map((u, j) => (j === 0 ? `${u}${u.endsWith('/') ? '' : '/'}p${i}` : u)),
    };
  });
  return { ...base, findings };
}
