import assert from 'node:assert/strict';
import type { AuditRow } from '../../src/audits/repository';
import { analyzeCrawl } from '../../src/audits/live-engine';
import { storedCrawl } from '../../src/audits/stored-crawl';
import { loadStoredSnapshot } from '../../src/crawl/durable/stored-snapshot';
import { CrawlWorkflow } from '../../workflows';
import { crawlWorkflowId, type CrawlWorkflowInput } from '../../workflows/contracts';
import { serveFixtureSite } from '../support/fixture-server';
import { getStack } from '../support/stack';

const FIXED = new Date('2026-01-01T00:00:00Z');

/**
 * The analysis of a stored crawl over its observed parts (docs/architecture.md, "Analysis in parts"):
 * a real CrawlWorkflow stores the parts, then runAudit's reading (storedCrawl) takes each part it can
 * and observes the pages of the others from their stored bodies, with the same results.
 */
describe('the analysis of a crawl observed in parts', function () {
  this.timeout(120_000);

  it('takes the stored parts, observes the pages of a missing part and of one observed by other code, and gives the same audit', async () => {
    const stack = await getStack();
    const site = await serveFixtureSite('broken-seo');
    const auditId = `aud_PARTS${Date.now()}`;
    const input: CrawlWorkflowInput = {
      crawlId: `${auditId}/0/1`,
      auditId,
      origin: site.origin,
      pageBudget: 100,
      stepPages: 3,
      heartbeatTimeoutMs: 10_000,
      stepsPerRun: 400,
    };
    const { db } = stack;
    const row = { id: auditId, domain: site.origin, mode: 'live', tier: 'pro', created_at: FIXED } as AuditRow;
    const analyse = async () => {
      const crawl = await storedCrawl(db, input.crawlId, (operation) => operation());
      const context = {
        heartbeat: () => undefined,
        signal: new AbortController().signal,
        finalAttempt: true,
        clock: { now: () => FIXED },
        startedAt: FIXED,
      };
      const { audit, facts } = await analyzeCrawl(stack.config, row, { ...crawl, crawlDurationMs: 0 }, context);
      return { audit, pages: [...facts!.pages], findingUrls: [...facts!.findingUrls] };
    };
    try {
      await stack.service.temporal.client.workflow.execute(CrawlWorkflow, {
        workflowId: crawlWorkflowId(auditId, 0, 1),
        taskQueue: stack.config.taskQueue,
        args: [input],
      });
      const parts = await db('crawl_observed_parts').where({ crawl_id: input.crawlId }).orderBy('part');
      assert.ok(parts.length >= 4, `the site's pages made four parts or more, saw ${parts.length}`);
      const whole = await analyse();
      assert.ok(whole.audit.findings.length > 3, 'the comparison covers findings');
      // The crawl's duration ends where its pages began to be observed (runAudit passes that moment).
      const { startedAt } = await loadStoredSnapshot(db, input.crawlId);
      const ended = await storedCrawl(
        db,
        input.crawlId,
        (operation) => operation(),
        new Date(startedAt.getTime() + 1234),
      );
      assert.equal(ended.crawlDurationMs, 1234);

      // Part 1 missing, part 2 observed by other code; the other parts' pages lose their bodies, so
      // only their stored parts can give the same verdicts.
      await db('crawl_observed_parts').where({ crawl_id: input.crawlId, part: 1 }).delete();
      await db('crawl_observed_parts').where({ crawl_id: input.crawlId, part: 2 }).update({ analyzers: 'OTHER_CODE' });
      await db.raw(
        `UPDATE crawl_pages SET body = NULL WHERE crawl_id = :crawlId AND seq IN (
           SELECT seq FROM crawl_pages WHERE crawl_id = :crawlId ORDER BY seq OFFSET 9)
           OR seq IN (SELECT seq FROM crawl_pages WHERE crawl_id = :crawlId ORDER BY seq LIMIT 3)`,
        { crawlId: input.crawlId },
      );
      assert.deepEqual(await analyse(), whole);

      // The control: without their parts, the pages that lost their bodies are judged differently.
      await db('crawl_observed_parts').where({ crawl_id: input.crawlId }).delete();
      assert.notDeepEqual((await analyse()).audit.findings, whole.audit.findings);
    } finally {
      await db('crawl_runs').where({ crawl_id: input.crawlId }).delete();
      await site.close();
    }
  });
});
