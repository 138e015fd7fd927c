import { DEFAULT_PAGE_BUDGETS } from '../../src/page-budgets';
import assert from 'node:assert/strict';
import { SettableClock } from '../../src/clock';
import type { Db } from '../../src/db/knex';
import type { AuditRow } from '../../src/audits/repository';
import {
  createProgressRecorder,
  progressOf,
  progressOfRow,
  type AuditProgress,
  type ProgressColumns,
} from '../../src/audits/progress';
import { presentAuditStatus } from '../../src/presenters/audits';

const T0 = new Date('2026-11-27T10:00:00.000Z');

describe('progress of a running audit', () => {
  describe('progressOf (heartbeat objects)', () => {
    it('reads the crawl reports {phase, pagesCrawled, pagesDiscovered}', () => {
      assert.deepEqual(progressOf({ phase: 'crawling', pagesCrawled: 3, pagesDiscovered: 40 }), {
        phase: 'crawling',
        pagesCrawled: 3,
        pagesDiscovered: 40,
      });
      assert.deepEqual(progressOf({ phase: 'checking', pagesCrawled: 40, pagesDiscovered: 40, extra: 'kept out' }), {
        phase: 'checking',
        pagesCrawled: 40,
        pagesDiscovered: 40,
      });
      assert.deepEqual(progressOf({ phase: 'analyzing', pagesCrawled: 0, pagesDiscovered: 0 }), {
        phase: 'analyzing',
        pagesCrawled: 0,
        pagesDiscovered: 0,
      });
    });

    it('never reports fewer pages discovered than crawled', () => {
      assert.deepEqual(progressOf({ phase: 'crawling', pagesCrawled: 9, pagesDiscovered: 4 }), {
        phase: 'crawling',
        pagesCrawled: 9,
        pagesDiscovered: 9,
      });
    });

    it('ignores reports without progress and malformed ones', () => {
      for (const p of [
        undefined,
        null,
        3,
        'crawling',
        { phase: 'starting' },
        { phase: 'storing' },
        { phase: 'rendering', pagesCrawled: 1, pagesDiscovered: 1 }, // set by the browser store, not heartbeats
        { phase: 'crawling', pagesCrawled: 1 },
        { phase: 'crawling', pagesCrawled: -1, pagesDiscovered: 4 },
        { phase: 'crawling', pagesCrawled: 1.5, pagesDiscovered: 4 },
        { phase: 'crawling', pagesCrawled: '2', pagesDiscovered: 4 },
        { phase: 'crawling', pagesCrawled: 2, pagesDiscovered: Infinity },
        { phase: 'crawling', pagesCrawled: 2, queued: 3 },
        { pagesCrawled: 2 },
        { pagesCrawled: 2, queued: NaN },
        { phase: 'analyzing', pages: 3 },
        { phase: 'analyzing', pages: -3, analyzed: 0 },
      ]) {
        assert.equal(progressOf(p), undefined, JSON.stringify(p));
      }
    });
  });

  describe('createProgressRecorder', () => {
    function fakeDb() {
      const writes: Array<{ at: number; values: Record<string, unknown> }> = [];
      const pending: Array<() => void> = [];
      let holdWrites = false;
      const builder = {
        where: () => builder,
        whereRaw: () => builder,
        update(values: Record<string, unknown>) {
          writes.push({ at: clock.now().getTime(), values });
          return holdWrites ? new Promise<number>((resolve) => pending.push(() => resolve(1))) : Promise.resolve(1);
        },
      };
      const clock = new SettableClock();
      clock.set(T0);
      return {
        db: (() => builder) as unknown as Db,
        clock,
        writes,
        hold: (on: boolean) => (holdWrites = on),
        release: async () => {
          for (const done of pending.splice(0)) done();
          await new Promise((resolve) => setImmediate(resolve));
        },
      };
    }
    const at = (phase: AuditProgress['phase'], pagesCrawled: number, pagesDiscovered: number): AuditProgress => ({
      phase,
      pagesCrawled,
      pagesDiscovered,
    });

    it('writes at most once per interval, and a new phase at once', async () => {
      const fake = fakeDb();
      const record = createProgressRecorder(fake, 'aud_1', 2_000);
      record(at('crawling', 1, 10));
      await new Promise((resolve) => setImmediate(resolve));
      fake.clock.advance(500);
      record(at('crawling', 2, 12)); // throttled
      await new Promise((resolve) => setImmediate(resolve));
      fake.clock.advance(500);
      record(at('checking', 12, 12)); // a new phase: written at once
      await new Promise((resolve) => setImmediate(resolve));
      fake.clock.advance(2_000);
      record(at('checking', 12, 12));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        fake.writes.map((w) => [w.at - T0.getTime(), w.values.progress_phase, w.values.pages_crawled]),
        [
          [0, 'crawling', 1],
          [1000, 'checking', 12],
          [3000, 'checking', 12],
        ],
      );
      const first = fake.writes[0]!.values;
      assert.deepEqual(first, {
        progress_phase: 'crawling',
        pages_crawled: 1,
        pages_discovered: 10,
        attempt_started_at: T0,
        phase_started_at: T0,
      });
      assert.deepEqual(fake.writes[1]!.values.phase_started_at, new Date(T0.getTime() + 1000));
      assert.deepEqual(fake.writes[2]!.values.attempt_started_at, T0);
    });

    it("goes on with a phase's clock it continues (runAudit after the parts), and restarts it for another phase", async () => {
      const fake = fakeDb();
      const partsBegan = new Date(T0.getTime() - 60_000);
      const crawlBegan = new Date(T0.getTime() - 200_000);
      const record = createProgressRecorder(fake, 'aud_1', 0, crawlBegan, {
        phase: 'analyzing',
        startedAt: partsBegan,
      });
      record(at('analyzing', 90, 90));
      await new Promise((resolve) => setImmediate(resolve));
      fake.clock.advance(1_000);
      record(at('rendering', 90, 90));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        fake.writes.map((w) => [w.values.progress_phase, w.values.phase_started_at, w.values.attempt_started_at]),
        [
          ['analyzing', partsBegan, crawlBegan],
          ['rendering', new Date(T0.getTime() + 1_000), crawlBegan],
        ],
      );
      // A continued phase that is not the one reported: its clock starts now.
      const other = fakeDb();
      createProgressRecorder(other, 'aud_1', 0, crawlBegan, { phase: 'analyzing', startedAt: partsBegan })(
        at('crawling', 1, 2),
      );
      assert.deepEqual(other.writes[0]!.values.phase_started_at, T0);
    });

    it('writes a phase change that came during a write as soon as that write ends', async () => {
      const fake = fakeDb();
      const record = createProgressRecorder(fake, 'aud_1', 2_000);
      fake.hold(true);
      record(at('crawling', 5, 9));
      record(at('analyzing', 9, 9));
      assert.equal(fake.writes.length, 1);
      fake.hold(false);
      await fake.release();
      assert.deepEqual(
        fake.writes.map((w) => w.values.progress_phase),
        ['crawling', 'analyzing'],
      );
    });

    it('never lets the counts go down within an attempt, nor discovered fall below crawled', async () => {
      const fake = fakeDb();
      const record = createProgressRecorder(fake, 'aud_1', 0);
      for (const p of [at('crawling', 4, 20), at('crawling', 5, 18), at('crawling', 25, 25), at('analyzing', 21, 21)]) {
        record(p);
        await new Promise((resolve) => setImmediate(resolve));
        fake.clock.advance(1);
      }
      assert.deepEqual(
        fake.writes.map((w) => [w.values.pages_crawled, w.values.pages_discovered]),
        [
          [4, 20],
          [5, 20],
          [25, 25],
          [25, 25],
        ],
      );
    });
  });

  describe('in the status envelope', () => {
    function row(overrides: Partial<AuditRow & ProgressColumns>): AuditRow & Partial<ProgressColumns> {
      return {
        id: 'aud_1',
        workspace_id: 'ws_1',
        account_id: 'acct_1',
        mode: 'live',
        domain: 'https://example.com',
        site_key: 'example.com',
        tier: 'pro',
        status: 'running',
        score: null,
        grade: null,
        charged: true,
        webhook_url: null,
        attempts: 1,
        error_code: null,
        error_message: null,
        result_json: null,
        estimated_completion: new Date(T0.getTime() + 60_000),
        created_at: T0,
        started_at: T0,
        completed_at: null,
        failed_at: null,
        pages_crawled: 200,
        run_generation: 0,
        progress_phase: 'crawling',
        pages_discovered: 500,
        attempt_started_at: T0,
        phase_started_at: T0,
        ...overrides,
      };
    }
    const now = new Date(T0.getTime() + 20_000);

    it('carries progress for a running live audit, its estimate following the measured rate', () => {
      assert.deepEqual(presentAuditStatus(row({}), { pageBudgets: DEFAULT_PAGE_BUDGETS, analysisMsPerPage: 0 }, now), {
        audit_id: 'aud_1',
        domain: 'https://example.com',
        status: 'running',
        // 200 pages in 20 s, 300 more: 30 s, then the analysis' 2 s.
        estimated_completion: '2026-11-27T10:00:52.000Z',
        progress: { phase: 'crawling', pages_crawled: 200, pages_discovered: 500 },
      });
      assert.deepEqual(
        presentAuditStatus(
          row({ progress_phase: 'rendering', phase_started_at: now }),
          { pageBudgets: DEFAULT_PAGE_BUDGETS, analysisMsPerPage: 0 },
          now,
        ),
        {
          audit_id: 'aud_1',
          domain: 'https://example.com',
          status: 'running',
          estimated_completion: '2026-11-27T10:00:50.000Z',
          progress: { phase: 'rendering', pages_crawled: 200, pages_discovered: 500 },
        },
      );
    });

    it('counts the pages left within the budget the audits run with (PAGE_BUDGETS), not the default', () => {
      const tier = row({}).tier;
      const budgets = { ...DEFAULT_PAGE_BUDGETS, [tier]: 300 };
      // 200 of at most 300 crawled in 20 s: 100 more take 10 s, then the analysis' 2 s.
      assert.equal(
        presentAuditStatus(row({}), { pageBudgets: budgets, analysisMsPerPage: 0 }, now).estimated_completion,
        '2026-11-27T10:00:32.000Z',
      );
    });

    it('leaves progress out for queued, failed, completed and test-mode audits, and before the attempt reports', () => {
      const stored = '2026-11-27T10:01:00.000Z';
      for (const r of [
        row({ status: 'queued' }),
        row({ status: 'failed', error_code: 'domain_unreachable', error_message: 'no answer' }),
        row({ mode: 'test' }),
        row({ pages_crawled: null }),
      ]) {
        const envelope = presentAuditStatus(r, { pageBudgets: DEFAULT_PAGE_BUDGETS, analysisMsPerPage: 0 }, now);
        assert.equal('progress' in envelope, false, JSON.stringify(envelope));
        assert.equal(envelope.estimated_completion, stored);
      }
      assert.equal(progressOfRow(row({ status: 'completed' })), undefined);
    });

    it('shows a count written by an older worker as crawling, and keeps discovered at or above crawled', () => {
      assert.deepEqual(progressOfRow(row({ progress_phase: null, pages_discovered: null, pages_crawled: 7 })), {
        phase: 'crawling',
        pagesCrawled: 7,
        pagesDiscovered: 7,
      });
      // Without the attempt's start the rate is unknown: the stored estimate stands.
      const envelope = presentAuditStatus(
        row({ attempt_started_at: null }),
        { pageBudgets: DEFAULT_PAGE_BUDGETS, analysisMsPerPage: 0 },
        now,
      );
      assert.equal(envelope.estimated_completion, '2026-11-27T10:01:00.000Z');
      assert.deepEqual(envelope.progress, { phase: 'crawling', pages_crawled: 200, pages_discovered: 500 });
    });
  });
});
