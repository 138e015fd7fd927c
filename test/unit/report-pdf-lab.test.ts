import assert from 'node:assert/strict';
import { mergeBrowserStage } from '../../src/analyzers/browser-stage';
import { syntheticAudit } from '../../src/audits/synthetic';
import type { BrowserStageResult } from '../../src/browser/stage-result';
import { renderAuditReport } from '../../src/reports/pdf';
import { extract, flat } from '../support/pdf';
import { syntheticInput } from '../support/synthetic-input';

const GENERATED_AT = new Date('2026-11-23T08:00:00.000Z');
const DOMAIN = 'https://www.shop-7.co.uk';

const STAGE: BrowserStageResult = {
  pages: [
    {
      url: `${DOMAIN}/`,
      status: 'measured',
      metrics: { fcpMs: 1500, lcpMs: 3200, cls: 0.31, tbtMs: 150, speedIndexMs: 6400 },
      violations: [],
      consoleErrors: [],
      durationMs: 9000,
    },
    { url: `${DOMAIN}/pricing`, status: 'unrenderable', reason: 'The page did not finish loading within 30 s.' },
  ],
  durationMs: 40_000,
};

async function pdfText(audit: Parameters<typeof renderAuditReport>[0]): Promise<string> {
  return flat((await extract(await renderAuditReport(audit, null, { generatedAt: GENERATED_AT }))).text);
}

describe('PDF report: lab metrics', function () {
  this.timeout(30_000);
  const base = syntheticAudit(syntheticInput(DOMAIN, { tier: 'team' }));

  it('lists each sampled page with FCP, LCP, TBT, CLS and SI rated good / needs work / poor', async () => {
    const audit = mergeBrowserStage(base, STAGE);
    const t = await pdfText(audit);
    const section = t.slice(t.lastIndexOf('Lab metrics'));
    assert.ok(section.includes('1 of 2 sampled pages were measured'), 'intro');
    assert.ok(section.includes(`performance score (${audit.browser!.performance_score})`), 'site score');
    for (const cell of ['1.5 s good', '3.2 s needs work', '150 ms good', '0.310 poor', '6.4 s poor'])
      assert.ok(section.includes(cell), cell);
    assert.ok(section.includes('/pricing Could not be measured: The page did not finish loading within 30 s.'));
    // Listed in the contents, which comes before it.
    assert.ok(t.indexOf('Lab metrics') < t.lastIndexOf('Lab metrics'));
  });

  it('says so when the stage did not run, and is absent from audits made before it', async () => {
    const t = await pdfText(mergeBrowserStage(base, null));
    assert.ok(t.includes('The browser stage did not run for this audit'));
    const older = { ...base };
    delete older.browser;
    assert.ok(!(await pdfText(older)).includes('Lab metrics'));
  });

  it('renders the synthetic stage of a test-mode audit, one row per sampled page', async () => {
    const t = await pdfText(base);
    const pages = base.browser!.pages;
    assert.equal(pages.length, 10, 'team tier samples 10 pages');
    for (const p of pages) assert.ok(t.includes(new URL(p.url).pathname), p.url);
  });
});
