import assert from 'node:assert/strict';
import { TIER_RULES } from '../../src/accounts/tiers';
import type { Tier } from '../../src/schemas/audit';
import { backlogWaitMs, estimateCompletion, estimateRunningCompletion, liveRunLeftMs } from '../../src/audits/estimate';
import { DEFAULT_PAGE_BUDGETS, parsePageBudgets } from '../../src/page-budgets';

/** A measured crawl speed, the analysis's per-page cost left out (its own tests below). */
const crawl = (msPerPage: number) => ({ msPerPage, analysisMsPerPage: 0 });
const NO_ANALYSIS = { pageBudgets: DEFAULT_PAGE_BUDGETS, analysisMsPerPage: 0 };

describe('estimated completion', () => {
  const from = new Date('2026-11-21T10:00:00.000Z');

  const afterMs = (ms: number) => new Date(from.getTime() + ms).toISOString();
  // A queued audit expects a typical site of 200 pages, within its budget.
  const expected = (tier: Tier) => Math.min(TIER_RULES[tier].pageBudget, 200);

  it('estimates queued live audits at a typical site size within the budget and the measured crawl speed', () => {
    // 3 s of fixed costs (setup, analysis, storing) and 200 pages (free: its budget of 100) at the measured speed.
    assert.equal(expected('free'), 100);
    assert.equal(estimateCompletion('live', 'free', from, crawl(100)).toISOString(), afterMs(3000 + 100 * 100));
    assert.equal(estimateCompletion('live', 'pro', from, crawl(100)).toISOString(), afterMs(3000 + 200 * 100));
    assert.equal(estimateCompletion('live', 'pro', from, crawl(20)).toISOString(), afterMs(3000 + 200 * 20));
    assert.equal(estimateCompletion('live', 'enterprise', from, crawl(50)).toISOString(), afterMs(3000 + 200 * 50));
    assert.ok(estimateCompletion('live', 'pro', from, crawl(20)) < estimateCompletion('live', 'pro', from, crawl(100)));
    assert.ok(
      estimateCompletion('live', 'free', from, crawl(100)) < estimateCompletion('live', 'team', from, crawl(100)),
    );
  });

  it('estimates within the budget audits run with when PAGE_BUDGETS overrides a tier', () => {
    // free:50 below the typical 200 pages, pro:150 below it too, free:1000 above it: the override decides.
    const lower = parsePageBudgets('free:50,pro:150');
    assert.equal(
      estimateCompletion('live', 'free', from, crawl(100), undefined, lower).toISOString(),
      afterMs(3000 + 50 * 100),
    );
    assert.equal(
      estimateCompletion('live', 'pro', from, crawl(100), undefined, lower).toISOString(),
      afterMs(3000 + 150 * 100),
    );
    // A tier not named keeps its default (team 100,000: the typical 200 pages).
    assert.equal(
      estimateCompletion('live', 'team', from, crawl(100), undefined, lower).toISOString(),
      afterMs(3000 + 200 * 100),
    );
    const higher = parsePageBudgets('free:1000');
    assert.equal(
      estimateCompletion('live', 'free', from, crawl(100), undefined, higher).toISOString(),
      afterMs(3000 + 200 * 100),
    );
    // A running audit's pages left are bounded by the overridden budget too: 200 crawled, 500 found, budget 250.
    const progress = { phase: 'crawling', pagesCrawled: 200, pagesDiscovered: 500 } as const;
    const times = { attemptStartedAt: from, phaseStartedAt: from };
    const now = new Date(from.getTime() + 20_000);
    const at = estimateRunningCompletion('pro', progress, times, now, {
      pageBudgets: parsePageBudgets('pro:250'),
      analysisMsPerPage: 0,
    });
    assert.equal(at.getTime() - now.getTime(), 50 * 100 + 2000);
  });

  it('gives test audits a short constant on an idle stack', () => {
    assert.equal(estimateCompletion('test', 'team', from, crawl(500)).toISOString(), '2026-11-21T10:00:02.000Z');
    assert.equal(
      estimateCompletion('test', 'team', from, crawl(500), { inFlight: 0, finishedPerS: 40 }).toISOString(),
      '2026-11-21T10:00:02.000Z',
    );
  });

  it('adds the time the audits in flight take to drain at the measured rate', () => {
    // 300 test audits ahead, finishing 50 a second: 6 s, then its own 2 s.
    const backlog = { inFlight: 300, finishedPerS: 50 };
    assert.equal(backlogWaitMs('test', backlog), 6000);
    assert.equal(estimateCompletion('test', 'pro', from, crawl(0), backlog).toISOString(), '2026-11-21T10:00:08.000Z');
    // 20 live audits ahead at 0.5 a second: 40 s before this one's own run.
    assert.equal(
      estimateCompletion('live', 'pro', from, crawl(100), { inFlight: 20, finishedPerS: 0.5 }).toISOString(),
      afterMs(40_000 + 3000 + expected('pro') * 100),
    );
  });

  it('grows with the backlog and shrinks as the completion rate rises', () => {
    const at = (inFlight: number, finishedPerS: number) =>
      estimateCompletion('test', 'pro', from, crawl(0), { inFlight, finishedPerS }).getTime();
    assert.ok(at(100, 20) < at(1000, 20));
    assert.ok(at(1000, 100) < at(1000, 20));
  });

  it('assumes a conservative rate when audits are in flight but none finished lately', () => {
    // A burst on a stack that was idle: the fallback of 10 test audits a second.
    assert.equal(backlogWaitMs('test', { inFlight: 50, finishedPerS: 0 }), 5000);
    assert.equal(backlogWaitMs('live', { inFlight: 3, finishedPerS: 0 }), 3000);
  });

  describe('of a running live audit', () => {
    const started = new Date('2026-11-21T10:00:00.000Z');
    const times = { attemptStartedAt: started, phaseStartedAt: started };
    const after = (ms: number) => new Date(started.getTime() + ms);
    const leftMs = (at: Date, now: Date) => at.getTime() - now.getTime();

    it('crawls what was discovered and not crawled yet at the rate measured so far, then the fixed analysis', () => {
      // 200 pages in 20 s with 300 more discovered: 100 ms a page, 30 s more, then the analysis' 2 s.
      const now = after(20_000);
      const progress = { phase: 'crawling', pagesCrawled: 200, pagesDiscovered: 500 } as const;
      assert.equal(leftMs(estimateRunningCompletion('enterprise', progress, times, now, NO_ANALYSIS), now), 32_000);
      // Twice as slow (200 pages in 40 s): 60 s more.
      assert.equal(
        leftMs(estimateRunningCompletion('enterprise', progress, times, after(40_000), NO_ANALYSIS), after(40_000)),
        62_000,
      );
      // The same rule from a crafted rate: the queued estimate uses it with the crawl-speed average.
      assert.equal(liveRunLeftMs(progress, 1_000_000, crawl(100)), 32_000);
    });

    it('bounds the pages still to crawl by the page budget', () => {
      const progress = { phase: 'crawling', pagesCrawled: 200, pagesDiscovered: 500 } as const;
      assert.equal(liveRunLeftMs(progress, 250, crawl(100)), 7_000);
      assert.equal(liveRunLeftMs(progress, 150, crawl(100)), 2_000);
      assert.equal(liveRunLeftMs({ ...progress, phase: 'checking', pagesCrawled: 500 }, 1_000, crawl(100)), 2_000);
    });

    it('counts a fixed-length phase from when it began, and is never in the past', () => {
      const progress = { phase: 'analyzing', pagesCrawled: 80, pagesDiscovered: 80 } as const;
      const phase = { attemptStartedAt: started, phaseStartedAt: after(10_000) };
      assert.equal(
        estimateRunningCompletion('pro', progress, phase, after(10_500), NO_ANALYSIS).toISOString(),
        '2026-11-21T10:00:12.000Z',
      );
      // Overdue: a second from now, not a time already passed.
      assert.equal(
        estimateRunningCompletion('pro', progress, phase, after(30_000), NO_ANALYSIS).toISOString(),
        '2026-11-21T10:00:31.000Z',
      );
      const rendering = { ...progress, phase: 'rendering' } as const;
      assert.equal(
        estimateRunningCompletion('pro', rendering, phase, after(11_000), NO_ANALYSIS).toISOString(),
        '2026-11-21T10:00:40.000Z',
      );
    });

    it('counts the analysis of every page at the measured analysis speed, from the crawl and from its own start', () => {
      // 100,000 pages discovered, 20,000 crawled in 40 s (2 ms a page); the analysis at 0.9 ms a page.
      const measured = { pageBudgets: DEFAULT_PAGE_BUDGETS, analysisMsPerPage: 0.9 };
      const crawling = { phase: 'crawling', pagesCrawled: 20_000, pagesDiscovered: 100_000 } as const;
      assert.equal(
        leftMs(estimateRunningCompletion('enterprise', crawling, times, after(40_000), measured), after(40_000)),
        80_000 * 2 + 100_000 * 0.9 + 2_000,
      );
      // Within the budget: a pro audit (10,000 pages) analyses at most 10,000.
      const pro = { phase: 'crawling', pagesCrawled: 2_000, pagesDiscovered: 100_000 } as const;
      assert.equal(
        liveRunLeftMs(pro, 10_000, { msPerPage: 2, analysisMsPerPage: 0.9 }),
        8_000 * 2 + 10_000 * 0.9 + 2_000,
      );
      // Analysing 100,000 pages since 30 s: 90 s + 2 s from its start, 62 s from now; not the fixed 2 s.
      const analyzing = { phase: 'analyzing', pagesCrawled: 100_000, pagesDiscovered: 100_000 } as const;
      const phase = { attemptStartedAt: started, phaseStartedAt: after(200_000) };
      assert.equal(
        leftMs(estimateRunningCompletion('enterprise', analyzing, phase, after(230_000), measured), after(230_000)),
        62_000,
      );
      // A small site's analysis stays about its fixed cost.
      assert.equal(liveRunLeftMs({ ...analyzing, pagesCrawled: 10, pagesDiscovered: 10 }, 100, crawl(0)), 2_000);
    });

    it('is not absurd before the first page or with clocks that disagree', () => {
      const none = { phase: 'crawling', pagesCrawled: 0, pagesDiscovered: 1 } as const;
      // No page yet: the conservative default rate (150 ms a page) for the one page known.
      assert.equal(
        leftMs(estimateRunningCompletion('free', none, times, after(5_000), NO_ANALYSIS), after(5_000)),
        2_150,
      );
      // A start "in the future" (another machine's clock) counts as no time spent: no negative rate.
      const ahead = { attemptStartedAt: after(60_000), phaseStartedAt: after(60_000) };
      const some = { phase: 'crawling', pagesCrawled: 10, pagesDiscovered: 20 } as const;
      assert.equal(
        leftMs(estimateRunningCompletion('free', some, ahead, after(1_000), NO_ANALYSIS), after(1_000)),
        2_000,
      );
    });
  });
});
