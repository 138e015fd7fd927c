import type { RunningApi } from '../../processes/api-service';
import assert from 'node:assert/strict';
import { superviseWorker, type SupervisedWorker } from '../../processes/worker-process';
import {
  api,
  getStack,
  newAccount,
  startExtraApi,
  stopExtraApi,
  waitForAudit,
  workerProcessEnv,
} from '../support/stack';
import { until } from '../support/receiver';
import { serveCountingSite } from '../support/sites';

/** Pages per crawl step in this test: small, so the crawl is many steps and a kill lands inside one. */
const STEP_PAGES = 4;
/** Steps of one crawl in flight at once (src/crawl/durable/step-context.ts). */
const WINDOW = 2;

describe('a worker killed mid-crawl', function () {
  this.timeout(240_000);

  it('costs only the steps it was on: another worker resumes the durable crawl, no page is fetched twice outside them, and the audit completes in the same attempt', async () => {
    const stack = await getStack();
    const taskQueue = 'audits-worker-restart-test';
    // 40 slow pages (150 ms each) in a tree 5 levels deep: surely under way when the worker dies.
    const site = await serveCountingSite(40, 150);
    const { origin, requests } = site;
    const env = await workerProcessEnv(taskQueue);
    let worker: SupervisedWorker | null = null;
    let apiForQueue: RunningApi | undefined;
    try {
      worker = await superviseWorker(env, () => undefined);
      await worker.ready();
      // The default heartbeat time-out (AUDIT_HEARTBEAT_TIMEOUT_MS), as in production.
      assert.equal(stack.config.auditHeartbeatTimeoutMs, 10_000);
      apiForQueue = await startExtraApi({
        config: { ...stack.config, taskQueue, crawl: { ...stack.config.crawl, stepPages: STEP_PAGES } },
      });
      const account = await newAccount('pro');
      const { body } = await api('POST', '/v1/audits', {
        key: account.liveKey,
        baseUrl: apiForQueue.url,
        body: { domain: origin },
      });
      const pageRequests = () => requests.filter((r) => /^\/p\d+$/.test(r));
      await until(() => pageRequests().length >= 10, 20_000, 'the crawl to be under way');
      const killed = worker.pid();
      process.kill(killed!, 'SIGKILL');
      const killedAt = Date.now();
      const fetchedBeforeKill = new Set(pageRequests());
      // A new process loads the worker's code first: seconds, many more on a loaded machine.
      await until(() => worker!.pid() !== killed && worker!.running(), 60_000, 'the supervisor to restart the worker');
      const done = await waitForAudit(account.liveKey, body.audit_id, 90_000);
      console.log(
        `      worker SIGKILL → audit completed on the restarted worker: ${((Date.now() - killedAt) / 1000).toFixed(1)} s`,
      );
      assert.equal(done.body.status, 'completed', done.text);
      assert.equal(done.body.crawl.pages_crawled, 40);
      assert.equal(
        requests.filter((r) => r === '/robots.txt').length,
        1,
        'the crawl resumed: its robots.txt was not fetched again',
      );
      const counts = new Map<string, number>();
      for (const path of pageRequests()) counts.set(path, (counts.get(path) ?? 0) + 1);
      const twice = [...counts].filter(([, n]) => n > 1).map(([path]) => path);
      assert.ok(
        [...counts.values()].every((n) => n <= 2),
        `no page fetched more than twice: ${JSON.stringify([...counts])}`,
      );
      assert.ok(
        twice.length <= STEP_PAGES * WINDOW,
        `only the pages of the steps in flight were fetched again (${twice.join(', ')})`,
      );
      assert.ok(
        twice.every((path) => fetchedBeforeKill.has(path)),
        'a page fetched again had been fetched by the killed worker',
      );
      const row = await stack.db('audits').where({ id: body.audit_id }).first('attempts');
      assert.equal(row.attempts, 1, 'a lost worker is not an audit retry');
    } finally {
      await stopExtraApi(apiForQueue);
      await worker?.stop();
      await site.close();
    }
  });
});
