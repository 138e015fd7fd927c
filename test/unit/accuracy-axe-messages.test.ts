import assert from 'node:assert/strict';
import {
  axeCheckMessages,
  axeIssues,
  plainAxeMessage,
  runBrowserAnalyzers,
  type AxeResult,
} from '../../src/analyzers/browser-analyzers';
import { EVIDENCE_MAX } from '../../src/analyzers/types';
import type { MeasuredPage } from '../../src/browser/stage-result';

/**
 * Issue 23 item 5: browser-stage findings speak our own plain words per axe rule, never axe's
 * "Fix any of the following:" text, with the failing element's HTML as evidence. The results below
 * are recorded in the shape axe-core 4 returns them (failureSummary as axe builds it).
 */

const CONTRAST: AxeResult = {
  id: 'color-contrast',
  impact: 'serious',
  help: 'Elements must meet minimum color contrast ratio thresholds',
  nodes: [
    {
      html: '<p class="legal">© All rights reserved.</p>',
      target: ['footer > .legal'],
      failureSummary:
        'Fix any of the following:\n  Element has insufficient color contrast of 2.85 (foreground color: #a0a0a0, background color: #ffffff, font size: 9.0pt (12px), font weight: normal). Expected contrast ratio of 4.5:1',
    },
  ],
};

const LINK_IN_TEXT: AxeResult = {
  id: 'link-in-text-block',
  impact: 'serious',
  help: 'Links must be distinguishable without relying on color',
  nodes: [
    {
      html: '<a href="/pricing" class="inline-link">see our plans</a>',
      target: ['main p > a'],
      failureSummary:
        'Fix any of the following:\n  The link has insufficient color contrast of 1.42:1 with the surrounding text. (Minimum contrast is 3:1, link text: #3b82f6, surrounding text: #4b5563)\n  The link has no styling (such as underline) to distinguish it from the surrounding text',
    },
  ],
};

const TARGET: AxeResult = {
  id: 'target-size',
  impact: 'serious',
  help: 'All touch targets must be 24px large, or leave sufficient space',
  nodes: [
    {
      html: '<a href="/a" class="dot">a</a>',
      target: ['#dots > a:nth-child(1)'],
      failureSummary:
        'Fix any of the following:\n  Target has insufficient size (10px by 10px, should be at least 24px by 24px)\n  Target has insufficient space to its closest neighbors. Safe clickable space has a diameter of 16px instead of at least 24px.',
    },
  ],
};

const BOILERPLATE = /Fix (any|all) of the following|\n/;

describe('accuracy: axe results in our own words', () => {
  it('color-contrast: the ratio, the colours and the needed ratio, plainly', () => {
    const [issue] = axeIssues(CONTRAST);
    assert.equal(
      issue!.message,
      'Text is hard to read: it contrasts 2.85:1 with its background (#a0a0a0 on #ffffff, 12 px text), and at least 4.5:1 is needed.',
    );
    assert.equal(issue!.evidence, '<p class="legal">© All rights reserved.</p>');
    assert.equal(issue!.subject, 'footer > .legal');
    assert.equal(issue!.outcome, 'fail');
  });

  it('link-in-text-block: the contrast message wins over the "no styling" one; alone, "no styling" reads plainly', () => {
    assert.match(
      axeIssues(LINK_IN_TEXT)[0]!.message,
      /^A link in a block of text .* \(1\.42:1 where 3:1 is needed\); underline it/,
    );
    const styleOnly =
      'Fix any of the following:\n  The link has no styling (such as underline) to distinguish it from the surrounding text';
    assert.equal(
      plainAxeMessage(LINK_IN_TEXT, styleOnly),
      'A link in a block of text is told apart from the words around it by colour alone; underline it or mark it in another way.',
    );
  });

  it('target-size: the size measured and the size needed; the spacing message when only spacing is given', () => {
    assert.equal(
      axeIssues(TARGET)[0]!.message,
      'A tap target is 10 × 10 px; it needs at least 24 × 24 px, or more room around it, to be tapped reliably.',
    );
    assert.match(
      plainAxeMessage(
        TARGET,
        'Fix any of the following:\n  Target has insufficient space to its closest neighbors. Safe clickable space has a diameter of 16px instead of at least 24px.',
      ),
      /has 16 px of clear space where 24 px are needed/,
    );
  });

  it("a mapped rule whose message axe words differently falls back to the rule's plain sentence", () => {
    assert.equal(
      plainAxeMessage(CONTRAST, 'Fix any of the following:\n  Something axe says in a future version'),
      'Text does not stand out enough from its background to be read easily.',
    );
  });

  it("an unmapped rule: axe's help without the boilerplate, then its first check message, then the rule id", () => {
    const result: AxeResult = {
      id: 'image-alt',
      impact: 'critical',
      help: 'Images must have alternative text',
      nodes: [
        {
          html: '<img src="/a.png">',
          target: ['img'],
          failureSummary: 'Fix any of the following:\n  Element does not have an alt attribute',
        },
      ],
    };
    assert.equal(axeIssues(result)[0]!.message, 'Images must have alternative text.');
    assert.equal(
      plainAxeMessage({ id: 'image-alt' }, result.nodes[0]!.failureSummary),
      'Element does not have an alt attribute.',
    );
    assert.equal(plainAxeMessage({ id: 'x-rule' }, ''), 'The page fails the accessibility rule "x-rule".');
    assert.deepEqual(axeCheckMessages('Fix all of the following:\n  A\n\nFix any of the following:\n  B\n  C'), [
      'A',
      'B',
      'C',
    ]);
  });

  it("evidence is the element's outerHTML, truncated to EVIDENCE_MAX; iframe targets join into one selector", () => {
    const html = `<div class="banner" data-x="${'y'.repeat(600)}">Sale</div>`;
    const [issue] = axeIssues({
      ...CONTRAST,
      nodes: [{ ...CONTRAST.nodes[0]!, html, target: ['iframe#ad', '.banner'] }],
    });
    assert.ok(issue!.evidence.length <= EVIDENCE_MAX);
    assert.ok(issue!.evidence.startsWith('<div class="banner" data-x="yyy'));
    assert.equal(issue!.subject, 'iframe#ad .banner');
  });

  it("through the browser stage: no finding carries axe's raw text (Lighthouse keeps failureSummary as the message)", () => {
    const page = (path: string): MeasuredPage => ({
      url: `https://shop.example${path}`,
      status: 'measured',
      metrics: { fcpMs: 900, lcpMs: 1400, cls: 0.01, tbtMs: 40, speedIndexMs: 1500 },
      violations: [CONTRAST, LINK_IN_TEXT, TARGET].map((r) => ({
        rule: r.id as 'color-contrast',
        nodes: r.nodes.map((n) => ({ selector: String(n.target[0]), html: n.html, message: n.failureSummary! })),
      })),
      consoleErrors: [],
      durationMs: 8000,
    });
    const out = runBrowserAnalyzers([page('/'), page('/a')]);
    for (const code of ['A11Y_COLOR_CONTRAST', 'A11Y_LINK_IN_TEXT_BLOCK', 'A11Y_TARGET_SIZE'] as const) {
      const findings = out.get(code)!.findings;
      assert.equal(findings.length, 1, code);
      assert.doesNotMatch(findings[0]!.message, BOILERPLATE, code);
      assert.ok(findings[0]!.evidence.startsWith('<'), code);
      assert.deepEqual(findings[0]!.urls, ['https://shop.example/', 'https://shop.example/a']);
    }
  });

  it('control: a page without violations has no rendered-accessibility finding', () => {
    const clean: MeasuredPage = {
      url: 'https://shop.example/',
      status: 'measured',
      metrics: { fcpMs: 900, lcpMs: 1400, cls: 0.01, tbtMs: 40, speedIndexMs: 1500 },
      violations: [],
      consoleErrors: [],
      durationMs: 8000,
    };
    const out = runBrowserAnalyzers([clean]);
    for (const code of ['A11Y_COLOR_CONTRAST', 'A11Y_LINK_IN_TEXT_BLOCK', 'A11Y_TARGET_SIZE'] as const)
      assert.deepEqual(out.get(code), { status: 'pass', score: 1, findings: [] });
  });
});
