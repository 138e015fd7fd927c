import assert from 'node:assert/strict';
import { TIER_RULES } from '../../src/accounts/tiers';
import { DEFAULT_ANALYSIS_MS_PER_PAGE } from '../../src/audits/crawl-speed';
import { createProgressRecorder } from '../../src/audits/progress';
import { savePendingAudit } from '../../src/browser/store';
import { serveSlowSite } from '../support/sites';
import { api, getStack, newAccount, waitForAudit, type ApiResponse } from '../support/stack';

const PHASES = ['crawling', 'checking', 'analyzing', 'rendering'];
// The analysis after the crawl: its fixed cost (src/audits/estimate.ts, LIVE_FINISH_MS), and per page
// the deployment's measured speed (crawl_speed, read by the API at most every 30 s).
const FINISH_MS = 2_000;

/** One look at the status envelope while the audit runs: when it was asked and answered, and what it said. */
interface Poll {
  sentAt: number;
  answeredAt: number;
  body: {
    status: string;
    estimated_completion: string | null;
    progress?: { phase: string; pages_crawled: number; pages_discovered: number };
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('progress of a running audit', () => {
  it('is projected to the audit row and the status envelope while the crawl runs', async () => {
    const site = await serveSlowSite(700);
    try {
      const { db } = await getStack();
      const account = await newAccount('pro');
      const accepted = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      assert.equal(accepted.status, 202, accepted.text);
      const auditId = accepted.body.audit_id as string;
      const seen: number[] = [];
      const polls: Poll[] = [];
      let attemptStartedAt: Date | null = null;
      const deadline = Date.now() + 30_000;
      for (let round = 0; ; round++) {
        const row = await db('audits').where({ id: auditId }).first('status', 'pages_crawled', 'attempt_started_at');
        if (row.status === 'running' && row.pages_crawled !== null) seen.push(row.pages_crawled);
        attemptStartedAt ??= row.attempt_started_at;
        if (row.status === 'completed' || row.status === 'failed' || Date.now() > deadline) break;
        // The envelope every 250 ms: live keys are held to the retrieval limit (100 requests a minute).
        if (round % 5 === 0) {
          const sentAt = Date.now();
          const res: ApiResponse = await api('GET', `/v1/audits/${auditId}`, { key: account.liveKey });
          if (res.status === 200 && res.body.status !== 'completed')
            polls.push({ sentAt, answeredAt: Date.now(), body: res.body });
        }
        await sleep(50);
      }
      const done = await waitForAudit(account.liveKey, auditId);
      assert.equal(done.body.status, 'completed', done.text);
      assert.ok(seen.length > 0, 'pages crawled were visible while the audit ran');
      assert.ok(
        seen.every((n, i) => n >= 1 && (i === 0 || n >= seen[i - 1]!)),
        `never decreasing: ${seen}`,
      );
      assert.ok(seen[seen.length - 1]! <= done.body.crawl.pages_crawled);

      const withProgress = polls.filter((p) => p.body.progress);
      assert.ok(withProgress.length >= 2, `progress seen in the envelope: ${JSON.stringify(polls.map((p) => p.body))}`);
      assert.ok(attemptStartedAt, 'the attempt start is recorded for the estimate');
      const measured = await db('crawl_speed').where({ id: 1 }).first('analysis_ms_per_page');
      const analysisMsPerPage = Math.max(DEFAULT_ANALYSIS_MS_PER_PAGE, measured?.analysis_ms_per_page ?? 0);
      assertProgressTrustworthy(withProgress, new Date(attemptStartedAt).getTime(), analysisMsPerPage);
      // Nothing but the queued state comes before the first report; progress never goes away while running.
      const firstAt = polls.indexOf(withProgress[0]!);
      for (const poll of polls.slice(firstAt)) assert.ok(poll.body.progress, JSON.stringify(poll.body));
      for (const poll of polls.slice(0, firstAt)) assert.ok(['queued', 'running'].includes(poll.body.status));

      // Completed: the audit JSON and the findings, no progress anywhere.
      assert.equal('progress' in done.body, false);
      const findings = await api('GET', `/v1/audits/${auditId}/findings`, { key: account.liveKey });
      assert.ok(Array.isArray(findings.body), findings.text);
    } finally {
      await site.close();
    }
  });

  it('stamps completed_at when the audit completes, after its pages and finding URLs are stored', async () => {
    const site = await serveSlowSite(0);
    const { db } = await getStack();
    // Holds back the audit's page rows (the advisory lock replaceCrawlFacts takes per audit and table).
    const holder = await db.transaction();
    try {
      const account = await newAccount('pro');
      const accepted = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      assert.equal(accepted.status, 202, accepted.text);
      const auditId = accepted.body.audit_id as string;
      await holder.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`audit_pages:${auditId}`]);
      await waitFor(async () => {
        const row = await db('audits').where({ id: auditId }).first('progress_phase', 'status');
        assert.notEqual(row.status, 'completed', 'the page rows were held back');
        return row.progress_phase === 'analyzing';
      }, 30_000);
      await sleep(1_500);
      const released = Date.now();
      await holder.commit();
      const done = await waitForAudit(account.liveKey, auditId);
      assert.equal(done.body.status, 'completed', done.text);
      const row = await db('audits').where({ id: auditId }).first('completed_at');
      assert.equal(done.body.completed_at, row.completed_at.toISOString(), 'the JSON and the row agree');
      assert.ok(
        row.completed_at.getTime() >= released,
        `${row.completed_at.toISOString()} before the rows were stored`,
      );
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
      await site.close();
    }
  });

  it('enters the rendering phase when the analysed audit waits for its browser stage, for that attempt only', async () => {
    const { db, clock } = await getStack();
    const account = await newAccount('pro');
    const auditId = `aud_01JPR0GRESSRENDER${String(Date.now()).slice(-8)}`;
    const startedAt = new Date(Date.now() - 20_000);
    await db('audits').insert({
      id: auditId,
      workspace_id: account.workspaceId,
      account_id: account.accountId,
      mode: 'live',
      domain: 'https://rendering.example.com',
      tier: 'pro',
      status: 'running',
      attempts: 2,
      charged: false,
      created_at: startedAt,
      started_at: startedAt,
      estimated_completion: new Date(Date.now() + 5_000),
    });
    const envelope = async () => (await api('GET', `/v1/audits/${auditId}`, { key: account.liveKey })).body;
    // Before the attempt reports: the envelope has no progress, the estimate is the stored one.
    assert.equal('progress' in (await envelope()), false);

    const record = createProgressRecorder({ db, clock }, auditId, 0);
    record({ phase: 'analyzing', pagesCrawled: 12, pagesDiscovered: 15 });
    await waitFor(async () => (await envelope()).progress?.phase === 'analyzing');

    // An older attempt's stage leaves the row alone; this attempt's puts it in the rendering phase.
    await savePendingAudit(db, { auditId, attempt: 1 }, '{}');
    assert.equal((await envelope()).progress.phase, 'analyzing');
    const before = Date.now();
    await savePendingAudit(db, { auditId, attempt: 2 }, '{}');
    const rendering = await envelope();
    assert.deepEqual(rendering.progress, { phase: 'rendering', pages_crawled: 12, pages_discovered: 15 });
    const leftMs = Date.parse(rendering.estimated_completion) - before;
    assert.ok(leftMs > 1_000 && leftMs < 5 * 60_000, `rendering estimated ${leftMs} ms ahead`);

    // A late report of the same run does not take the phase back; a new run of the activity does.
    record({ phase: 'analyzing', pagesCrawled: 12, pagesDiscovered: 15 });
    await sleep(300);
    assert.equal((await envelope()).progress.phase, 'rendering');
    await sleep(5); // another start time for the next run's recorder
    createProgressRecorder({ db, clock }, auditId, 0)({ phase: 'crawling', pagesCrawled: 1, pagesDiscovered: 4 });
    await waitFor(async () => (await envelope()).progress?.phase === 'crawling');

    // Finished: no progress.
    await db('audits').where({ id: auditId }).update({ status: 'failed', error_code: 'domain_unreachable' });
    assert.equal('progress' in (await envelope()), false);
  });
});

/**
 * What each look at the envelope must show: a known phase that never goes back, pages crawled at
 * most pages discovered, both never decreasing, and an estimate in the future that follows the rate
 * measured so far (pages crawled over the time since the attempt started).
 */
function assertProgressTrustworthy(polls: Poll[], attemptStartedAt: number, analysisMsPerPage: number): void {
  const budget = TIER_RULES.pro.pageBudget;
  let crawlingChecked = 0;
  polls.forEach((poll, i) => {
    const { progress, estimated_completion } = poll.body;
    const shown = JSON.stringify(poll.body);
    assert.equal(poll.body.status, 'running', shown);
    assert.ok(progress && PHASES.includes(progress.phase), shown);
    assert.ok(progress.pages_crawled <= progress.pages_discovered, shown);
    const previous = polls[i - 1]?.body.progress;
    if (previous) {
      assert.ok(PHASES.indexOf(progress.phase) >= PHASES.indexOf(previous.phase), `phase went back: ${shown}`);
      assert.ok(progress.pages_crawled >= previous.pages_crawled, `pages crawled went down: ${shown}`);
      assert.ok(progress.pages_discovered >= previous.pages_discovered, `pages discovered went down: ${shown}`);
    }
    const estimate = Date.parse(estimated_completion!);
    assert.ok(estimate > poll.sentAt, `estimate in the future: ${shown}`);
    assert.ok(estimate < poll.answeredAt + 2 * 60_000, `a 13-page site is not estimated to take minutes: ${shown}`);
    if (progress.phase === 'crawling' && progress.pages_crawled > 0) {
      // now + pages left × (time since the start / pages crawled) + the analysis of every page, with
      // `now` in the request; the analysis's per-page speed at most the one measured (or the default).
      const pages = Math.min(progress.pages_discovered, budget);
      const at = (now: number) =>
        now + (pages - progress.pages_crawled) * ((now - attemptStartedAt) / progress.pages_crawled) + FINISH_MS;
      const [low, high] = [at(poll.sentAt), at(poll.answeredAt) + pages * analysisMsPerPage];
      const range = `${new Date(low).toISOString()} … ${new Date(high).toISOString()}`;
      assert.ok(estimate >= low - 5 && estimate <= high + 5, `${shown} not in ${range}`);
      crawlingChecked++;
    }
  });
  assert.ok(crawlingChecked > 0, 'an estimate was checked against the measured rate while crawling');
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}
