import assert from 'node:assert/strict';
import type { RunningApi } from '../../processes/api-service';
import { superviseWorker, type SupervisedWorker } from '../../processes/worker-process';
import { CrawlWorkflow } from '../../workflows';
import { auditWorkflowId, crawlWorkflowId, type CrawlWorkflowInput } from '../../workflows/contracts';
import {
  api,
  getStack,
  newAccount,
  startExtraApi,
  stopExtraApi,
  waitForAudit,
  workerProcessEnv,
} from '../support/stack';
import { serveCountingHost, serveCountingSite } from '../support/sites';

/** Identities of the workers that started the crawl's `activity` activities, in its (only) run, and how many each. */
async function stepWorkers(
  client: Awaited<ReturnType<typeof getStack>>['service']['temporal']['client'],
  id: string,
  activity: 'crawlPageStep' | 'observePagesPart',
) {
  const history = await client.workflow.getHandle(id).fetchHistory();
  const scheduled = new Map<string, string>();
  const identities = new Map<string, number>();
  for (const event of history.events ?? []) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) scheduled.set(String(event.eventId), type);
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId)) === activity) {
      const identity = started.identity ?? '?';
      identities.set(identity, (identities.get(identity) ?? 0) + 1);
    }
  }
  return identities;
}

type TemporalClient = Awaited<ReturnType<typeof getStack>>['service']['temporal']['client'];

/** When the first event of the workflow's latest run that `matches` was recorded, in ms since the epoch. */
async function firstEventAt(
  client: TemporalClient,
  id: string,
  matches: (
    event: NonNullable<
      Awaited<ReturnType<ReturnType<TemporalClient['workflow']['getHandle']>['fetchHistory']>>['events']
    >[number],
    scheduled: Map<string, string>,
  ) => boolean,
): Promise<number> {
  const history = await client.workflow.getHandle(id).fetchHistory();
  const scheduled = new Map<string, string>();
  for (const event of history.events ?? []) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) scheduled.set(String(event.eventId), type);
    if (matches(event, scheduled)) return Number(event.eventTime!.seconds) * 1000 + (event.eventTime!.nanos ?? 0) / 1e6;
  }
  throw new Error(`no such event in ${id}`);
}

describe('the durable crawl', function () {
  this.timeout(180_000);

  it('is shared by two workers, each taking steps and parts of the observing of one audit, with the per-host limits held for the audit as a whole', async () => {
    const stack = await getStack();
    const taskQueue = 'audits-two-workers-test';
    // Every page also links to a page of another site: 300 link checks, the external hosts' limit held.
    const elsewhere = await serveCountingHost('127.0.0.3', 40);
    const site = await serveCountingSite(300, 40, elsewhere.origin);
    const env = await workerProcessEnv(taskQueue);
    const workers: SupervisedWorker[] = [];
    let apiForQueue: RunningApi | undefined;
    try {
      for (let i = 0; i < 2; i++) workers.push(await superviseWorker(env, () => undefined));
      await Promise.all(workers.map((w) => w.ready()));
      apiForQueue = await startExtraApi({
        config: { ...stack.config, taskQueue, crawl: { ...stack.config.crawl, stepPages: 10 } },
      });
      const account = await newAccount('pro');
      const { body } = await api('POST', '/v1/audits', {
        key: account.liveKey,
        baseUrl: apiForQueue.url,
        body: { domain: site.origin },
      });
      const done = await waitForAudit(account.liveKey, body.audit_id, 120_000);
      assert.equal(done.body.status, 'completed', done.text);
      assert.equal(done.body.crawl.pages_crawled, 300);
      const pages = site.requests.filter((r) => /^\/(p\d+)?$/.test(r) && r !== '/');
      assert.equal(new Set(pages).size, pages.length, 'no page was fetched twice');
      assert.ok(
        site.maxInFlight() <= stack.config.crawl.concurrencyPerHost,
        `at most ${stack.config.crawl.concurrencyPerHost} requests in flight to the site, saw ${site.maxInFlight()}`,
      );
      assert.equal(new Set(elsewhere.requests).size, 300, "every other site's page was checked");
      assert.ok(
        elsewhere.maxInFlight() <= 2,
        `at most 2 requests in flight to another site's host, saw ${elsewhere.maxInFlight()}`,
      );
      console.log(`      most in flight: ${site.maxInFlight()} to the site, ${elsewhere.maxInFlight()} to the other`);
      const row = await stack.db('audits').where({ id: body.audit_id }).first('run_generation');
      const crawlWorkflow = crawlWorkflowId(body.audit_id, row.run_generation, 1);
      const identities = await stepWorkers(stack.service.temporal.client, crawlWorkflow, 'crawlPageStep');
      console.log(`      crawl steps per worker: ${JSON.stringify([...identities.values()])}`);
      assert.equal(identities.size, 2, `both workers took steps: ${JSON.stringify([...identities])}`);
      // 300 pages in parts of 10 (the step size), and none past the URLs discovered (patch observe-parts-bounded).
      const observers = await stepWorkers(stack.service.temporal.client, crawlWorkflow, 'observePagesPart');
      console.log(`      parts observed per worker: ${JSON.stringify([...observers.values()])}`);
      assert.equal(observers.size, 2, `both workers observed parts: ${JSON.stringify([...observers])}`);
      const parts = [...observers.values()].reduce((a, b) => a + b, 0);
      const partsDiscovered = Math.ceil(done.body.crawl.pages_discovered / 10);
      assert.ok(parts >= 30 && parts <= partsDiscovered, `30 to ${partsDiscovered} parts, saw ${parts}`);
      // The crawl's duration ends where its pages began to be observed, not when runAudit took them:
      // it began after its workflow started, and ended before the first part was done.
      const client = stack.service.temporal.client;
      const crawlStarted = await firstEventAt(
        client,
        auditWorkflowId(body.audit_id),
        (e) => !!e.childWorkflowExecutionStartedEventAttributes,
      );
      const firstPartDone = await firstEventAt(
        client,
        crawlWorkflow,
        (e, scheduled) =>
          scheduled.get(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)) === 'observePagesPart',
      );
      const runAuditStarted = await firstEventAt(
        client,
        auditWorkflowId(body.audit_id),
        (e, scheduled) => scheduled.get(String(e.activityTaskStartedEventAttributes?.scheduledEventId)) === 'runAudit',
      );
      console.log(
        `      crawl.duration_ms ${done.body.crawl.duration_ms}; first part done ${firstPartDone - crawlStarted} ms and runAudit started ${runAuditStarted - crawlStarted} ms after the crawl's workflow`,
      );
      assert.ok(
        done.body.crawl.duration_ms <= firstPartDone - crawlStarted,
        'the crawl ended before its first part was done',
      );
      // dropCrawl is the attempt's last step, after the audit is stored and shown completed.
      let left = Infinity;
      for (const until = Date.now() + 30_000; left > 0 && Date.now() < until;) {
        const rows = await stack.db('crawl_runs').where({ audit_id: body.audit_id }).count<{ count: string }[]>();
        left = Number(rows[0]!.count);
        if (left > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(left, 0, "the crawl's working state is dropped once the audit is stored");
    } finally {
      await stopExtraApi(apiForQueue);
      await Promise.all(workers.map((w) => w.stop()));
      await site.close();
      await elsewhere.close();
    }
  });

  it('continues as new every few steps and carries its cursor, so a long crawl keeps a small history', async () => {
    const stack = await getStack();
    const site = await serveCountingSite(30, 0);
    const auditId = `aud_CANTEST${Date.now()}`;
    const input: CrawlWorkflowInput = {
      crawlId: `${auditId}/0/1`,
      auditId,
      origin: site.origin,
      pageBudget: 100,
      stepPages: 2,
      heartbeatTimeoutMs: 10_000,
      stepsPerRun: 3,
    };
    const client = stack.service.temporal.client;
    try {
      const handle = await client.workflow.start(CrawlWorkflow, {
        workflowId: crawlWorkflowId(auditId, 0, 1),
        taskQueue: stack.config.taskQueue,
        args: [input],
      });
      const summary = await handle.result();
      assert.equal(summary.pagesCrawled, 30);
      const first = await client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
      const last = first.events?.[first.events.length - 1];
      assert.ok(last?.workflowExecutionContinuedAsNewEventAttributes, 'the first run continued as new');
      const pages = await stack.db('crawl_pages').where({ crawl_id: input.crawlId }).count<{ count: string }[]>();
      assert.equal(Number(pages[0]!.count), 30, 'every page stored once across the runs');
      // The observing went over runs too: every page in exactly one part, in order.
      const parts = await stack.db('crawl_observed_parts').where({ crawl_id: input.crawlId }).orderBy('part');
      assert.deepEqual(
        parts.map((p: { part: number; first_index: number; pages: number }) => [p.part, p.first_index, p.pages]),
        Array.from({ length: 15 }, (_, i) => [i, i * 2, 2]),
      );
      const paths = site.requests.filter((r) => /^\/p\d+$/.test(r));
      assert.equal(new Set(paths).size, paths.length, 'no page fetched twice across the runs');
    } finally {
      await stack.db('crawl_runs').where({ crawl_id: input.crawlId }).delete();
      await site.close();
    }
  });
});
