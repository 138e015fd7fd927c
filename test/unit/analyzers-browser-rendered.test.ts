import assert from 'node:assert/strict';
import { RENDERED_CHECK_CODES, runBrowserAnalyzers } from '../../src/analyzers/browser-analyzers';
import { foldRenderedChecks, judgedOnEveryPage, withRenderedChecks } from '../../src/analyzers/browser-rendered';
import { mergeBrowserStage } from '../../src/analyzers/browser-stage';
import { imgAltMissing } from '../../src/analyzers/a11y-page';
import { parsePages } from '../../src/analyzers/parse';
import { findingFingerprint } from '../../src/monitoring/fingerprint';
import type { CrawlSnapshot } from '../../src/analyzers/snapshot';
import { FindingIdAllocator, makeAnalyzerResult, makeFinding } from '../../src/analyzers/findings';
import { assembleAuditJson } from '../../src/audits/assemble';
import type { AnalysisResult } from '../../src/analyzers/analysis-run';
import type { BrowserStageResult, MeasuredPage, RenderedPageChecks } from '../../src/browser/stage-result';
import type { AuditJson } from '../../src/schemas/audit';

const O = 'https://shop.example';
const FADED = { selector: 'main > p.faded', html: '<p class="faded">', message: 'contrast of 1.9 ...' };
const LAYOUT = { selector: 'footer > p.legal', html: '<p class="legal">', message: 'contrast of 2.1 ...' };

function checks(path: string, extra: Partial<RenderedPageChecks> = {}): RenderedPageChecks {
  return { url: `${O}${path}`, violations: [], consoleErrors: [], ...extra };
}

async function* stream<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

/** Pages as the crawl stored them with render: "all": a layout element failing on two, one page's own text, one clean page. */
const PAGES: RenderedPageChecks[] = [
  checks('/', { violations: [{ rule: 'color-contrast', nodes: [LAYOUT] }] }),
  checks('/a', {
    violations: [{ rule: 'color-contrast', nodes: [LAYOUT, FADED] }],
    consoleErrors: [{ source: 'exception', text: 'TypeError: x is undefined', url: `${O}/app.js` }],
  }),
  checks('/b'),
  checks('/archive/faded', { violations: [{ rule: 'color-contrast', nodes: [FADED] }] }),
];

/** An assembled audit of HTML analyzers only. */
function analysedAudit(analysis: Pick<AnalysisResult, 'analyzers' | 'findings'>): AuditJson {
  return assembleAuditJson({
    auditId: 'aud_01JTEST0000000000000000000',
    domain: O,
    mode: 'live',
    tier: 'team',
    createdAt: '2026-12-01T10:15:00.000Z',
    startedAt: '2026-12-01T10:15:00.120Z',
    completedAt: '2026-12-01T10:15:09.480Z',
    pageBudget: 100,
    crawlDurationMs: 4200,
    pages: [],
    analyzers: analysis.analyzers,
    findings: analysis.findings,
  });
}

const HTML_ONLY: AnalysisResult = {
  analyzers: [
    makeAnalyzerResult('A11Y_IMG_ALT_MISSING', 'pass', 1),
    makeAnalyzerResult('BP_VIEWPORT_MISSING', 'pass', 1),
  ],
  findings: [],
  pages: [],
};

describe('rendered-DOM checks on every page (render: "all")', () => {
  it('folds each page as it comes to exactly what the sample analyzers make of the same pages', async () => {
    const folded = await foldRenderedChecks(stream(PAGES));
    const asSample = runBrowserAnalyzers(
      PAGES.map((p): MeasuredPage => ({
        ...p,
        status: 'measured',
        metrics: { fcpMs: 1, lcpMs: 1, cls: 0, tbtMs: 0, speedIndexMs: 1 },
        durationMs: 1,
      })),
    );
    assert.deepEqual([...folded!.keys()], [...RENDERED_CHECK_CODES]);
    for (const code of RENDERED_CHECK_CODES) assert.deepEqual(folded!.get(code), asSample.get(code), code);
    const contrast = folded!.get('A11Y_COLOR_CONTRAST')!;
    assert.equal(contrast.score, 1 / 4);
    assert.deepEqual(
      contrast.findings.map((f) => f.urls),
      [
        [`${O}/`, `${O}/a`],
        [`${O}/a`, `${O}/archive/faded`],
      ],
    );
    assert.equal(folded!.get('A11Y_TARGET_SIZE')!.status, 'pass');
  });

  it('no page stored checks (only shells rendered): nothing to fold', async () => {
    assert.equal(await foldRenderedChecks(stream([])), null);
    assert.equal(withRenderedChecks(HTML_ONLY, null), HTML_ONLY);
  });

  it('a fold that throws leaves the four analyzers error, and says why', async () => {
    const errors: unknown[] = [];
    const broken = (async function* (): AsyncGenerator<RenderedPageChecks> {
      throw new Error('bad row');
    })();
    const folded = await foldRenderedChecks(broken, (e) => errors.push(e));
    for (const code of RENDERED_CHECK_CODES) assert.equal(folded!.get(code)!.status, 'error');
    assert.equal(errors.length, 1);
  });

  it('adds the four analyzers to the analysis in catalog order, with their findings', async () => {
    const analysis = withRenderedChecks(HTML_ONLY, await foldRenderedChecks(stream(PAGES)));
    const codes = analysis.analyzers.map((a) => a.code);
    assert.deepEqual(codes, [
      'A11Y_IMG_ALT_MISSING',
      'A11Y_COLOR_CONTRAST',
      'A11Y_LINK_IN_TEXT_BLOCK',
      'A11Y_TARGET_SIZE',
      'BP_VIEWPORT_MISSING',
      'BP_CONSOLE_ERRORS',
    ]);
    assert.deepEqual(
      analysis.findings.map((f) => [f.analyzer, f.count]),
      [
        ['A11Y_COLOR_CONTRAST', 2],
        ['A11Y_COLOR_CONTRAST', 2],
        ['BP_CONSOLE_ERRORS', 1],
      ],
    );
  });

  it('merging the sample keeps what every page showed; without render "all" the sample decides (control)', async () => {
    const everyPage = analysedAudit(withRenderedChecks(HTML_ONLY, await foldRenderedChecks(stream(PAGES))));
    assert.deepEqual([...judgedOnEveryPage(everyPage)], [...RENDERED_CHECK_CODES]);
    // The sample's Lighthouse run saw the home page only, and no contrast problem on it.
    const stage: BrowserStageResult = {
      pages: [
        {
          url: `${O}/`,
          status: 'measured',
          metrics: { fcpMs: 900, lcpMs: 1400, cls: 0.01, tbtMs: 40, speedIndexMs: 1500 },
          violations: [],
          consoleErrors: [],
          durationMs: 8000,
        },
      ],
      durationMs: 8000,
    };
    const merged = mergeBrowserStage(everyPage, stage, judgedOnEveryPage(everyPage));
    const status = (audit: AuditJson, code: string) => audit.analyzers.find((a) => a.code === code)?.status;
    assert.equal(status(merged, 'A11Y_COLOR_CONTRAST'), 'fail');
    assert.deepEqual(
      merged.findings.filter((f) => f.analyzer === 'A11Y_COLOR_CONTRAST').flatMap((f) => f.urls),
      [`${O}/`, `${O}/a`, `${O}/a`, `${O}/archive/faded`],
    );
    // Lab metrics still come from the sample.
    assert.equal(status(merged, 'PERF_LCP_SLOW'), 'pass');
    assert.equal(merged.browser!.performance_basis, 'lab');
    assert.equal(JSON.stringify(mergeBrowserStage(merged, stage, judgedOnEveryPage(merged))), JSON.stringify(merged));

    const sampleOnly = analysedAudit(HTML_ONLY);
    assert.deepEqual([...judgedOnEveryPage(sampleOnly)], []);
    const fromSample = mergeBrowserStage(sampleOnly, stage, judgedOnEveryPage(sampleOnly));
    assert.equal(status(fromSample, 'A11Y_COLOR_CONTRAST'), 'pass');
    assert.deepEqual(
      fromSample.findings.filter((f) => f.analyzer === 'A11Y_COLOR_CONTRAST'),
      [],
    );
  });

  describe('control and image names on the rendered DOM', () => {
    const LOGO = { selector: 'header > img', html: '<img src="/logo.png" class="brand">', message: 'Fix any ...' };
    const ICON = { selector: 'nav > button.menu', html: '<button class="menu">', message: 'Fix any ...' };
    /** The home page's logo has no alt; /scripted's image got its alt from a script; /text has no image or control. */
    const NAMED: RenderedPageChecks[] = [
      checks('/', {
        violations: [
          { rule: 'image-alt', nodes: [LOGO] },
          { rule: 'button-name', nodes: [ICON] },
        ],
        nameRulesApplied: ['image-alt', 'link-name', 'button-name'],
      }),
      checks('/scripted', { nameRulesApplied: ['image-alt', 'link-name'] }),
      checks('/text', { nameRulesApplied: [] }),
    ];
    const status = (a: AnalysisResult, code: string) => a.analyzers.find((r) => r.code === code)!;

    it('judges each analyzer on the pages that have something to name, with exact counts', async () => {
      const folded = (await foldRenderedChecks(stream(NAMED)))!;
      const alt = folded.get('A11Y_IMG_ALT_MISSING')!;
      assert.equal(alt.status, 'fail');
      assert.equal(alt.score, 1 / 2); // / and /scripted have images; /text has none
      assert.deepEqual(
        alt.findings.map((f) => [f.message, f.urls, f.subject]),
        [['Image without an alt attribute.', [`${O}/`], 'img src=/logo.png']],
      );
      const controls = folded.get('A11Y_CONTROL_NAME_MISSING')!;
      assert.equal(controls.score, 1 / 2);
      assert.deepEqual(
        controls.findings.map((f) => f.message),
        ['A button has no accessible name (no text, aria-label, title or image alt).'],
      );
      // Control: a site with nothing to name is not_applicable, as the HTML analyzer makes it.
      const none = (await foldRenderedChecks(stream([checks('/text', { nameRulesApplied: [] })])))!;
      assert.equal(none.get('A11Y_IMG_ALT_MISSING')!.status, 'not_applicable');
    });

    it("names a missing alt as the HTML analyzer does, so the finding's fingerprint is the same", async () => {
      const snapshot: CrawlSnapshot = {
        origin: O,
        robots: { kind: 'fetched', url: `${O}/robots.txt`, status: 404, body: '' },
        pages: [
          {
            url: `${O}/`,
            finalUrl: `${O}/`,
            status: 200,
            headers: { 'content-type': 'text/html' },
            body: '<!doctype html><html lang="en"><body><header><img src="/logo.png" class="brand"></header></body></html>',
            ttfbMs: 10,
            bytes: 100,
            depth: 0,
            redirectChain: [],
          },
        ],
      };
      const [fromHtml] = imgAltMissing.run(snapshot, parsePages(snapshot.pages)).findings;
      const rendered = withRenderedChecks(HTML_ONLY, await foldRenderedChecks(stream(NAMED)));
      const [fromRender] = rendered.findings.filter((f) => f.analyzer === 'A11Y_IMG_ALT_MISSING');
      assert.equal(fromRender!.fingerprint, findingFingerprint('A11Y_IMG_ALT_MISSING', fromHtml!.subject));
    });

    it('the rendered verdict replaces the HTML one; checks stored without the name rules leave it (control)', async () => {
      const staticFinding = makeFinding(
        'A11Y_IMG_ALT_MISSING',
        {
          message: 'Image without an alt attribute.',
          evidence: '<img src="/late.png">',
          urls: [`${O}/scripted`],
          subject: 'img src=/late.png',
        },
        new FindingIdAllocator(),
      );
      const html: AnalysisResult = {
        ...HTML_ONLY,
        analyzers: [makeAnalyzerResult('A11Y_IMG_ALT_MISSING', 'fail', 0), HTML_ONLY.analyzers[1]!],
        findings: [staticFinding],
      };
      const rendered = withRenderedChecks(html, await foldRenderedChecks(stream(NAMED)));
      assert.equal(status(rendered, 'A11Y_IMG_ALT_MISSING').score, 1 / 2);
      assert.equal(status(rendered, 'A11Y_CONTROL_NAME_MISSING').status, 'fail');
      assert.equal(rendered.analyzers.filter((a) => a.code === 'A11Y_IMG_ALT_MISSING').length, 1);
      // The image whose alt a script added is no longer flagged; the logo without one is.
      assert.deepEqual(
        rendered.findings.filter((f) => f.analyzer === 'A11Y_IMG_ALT_MISSING').flatMap((f) => f.urls),
        [`${O}/`],
      );

      const unnamed = NAMED.map(({ nameRulesApplied: _, ...page }) => page);
      const kept = withRenderedChecks(html, await foldRenderedChecks(stream(unnamed)));
      assert.equal(status(kept, 'A11Y_IMG_ALT_MISSING').score, 0);
      assert.deepEqual(
        kept.findings.filter((f) => f.analyzer === 'A11Y_IMG_ALT_MISSING'),
        [staticFinding],
      );
      assert.equal(
        kept.analyzers.some((a) => a.code === 'A11Y_CONTROL_NAME_MISSING'),
        false,
      );
    });
  });
});
