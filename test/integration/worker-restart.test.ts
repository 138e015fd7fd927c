import type { RunningApi } from '../../processes/service';
import assert from 'node:assert/strict';
import { superviseWorker, type SupervisedWorker } from '../../processes/worker-process';
import { api, getStack, newAccount, startExtraApi, stopExtraApi, waitForAudit } from '../support/stack';
import { until } from '../support/receiver';
import { serveSlowSite } from '../support/sites';

describe('a worker killed mid-crawl', function () {
  this.timeout(90_000);

  it('has its crawl restarted on the restarted worker within 20 s (default heartbeat time-out), and the audit completes in the same attempt', async () => {
    const stack = await getStack();
    const taskQueue = 'audits-worker-restart-test';
    // A slow 12-page site: every page takes 300 ms, so the crawl is surely under way when the worker dies.
    const site = await serveSlowSite(300);
    const { origin, requests } = site;
    const env = {
      ...process.env,
      DATABASE_URL: stack.config.databaseUrl,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      TEST_WEBHOOK_MOCK_URL: `${stack.url}/mock/webhooks`,
    };
    let worker: SupervisedWorker | null = null;
    let apiForQueue: RunningApi | undefined;
    try {
      worker = await superviseWorker(env, () => undefined);
      await worker.ready();
      // The default heartbeat time-out (AUDIT_HEARTBEAT_TIMEOUT_MS), as in production.
      assert.equal(stack.config.auditHeartbeatTimeoutMs, 10_000);
      apiForQueue = await startExtraApi({ config: { ...stack.config, taskQueue } });
      const account = await newAccount('pro');
      const { body } = await api('POST', '/v1/audits', {
        key: account.liveKey,
        baseUrl: apiForQueue.url,
        body: { domain: origin },
      });
      await until(() => requests.filter((r) => r.startsWith('/p')).length >= 2, 15_000, 'the crawl to be under way');
      const killed = worker.pid();
      process.kill(killed!, 'SIGKILL');
      const killedAt = Date.now();
      await until(() => worker!.pid() !== killed && worker!.running(), 15_000, 'the supervisor to restart the worker');
      const done = await waitForAudit(account.liveKey, body.audit_id, 60_000);
      const recoveryMs = Date.now() - killedAt;
      console.log(
        `      worker SIGKILL → audit completed on the restarted worker: ${(recoveryMs / 1000).toFixed(1)} s`,
      );
      assert.equal(done.body.status, 'completed', done.text);
      assert.ok(recoveryMs < 20_000, `recovered in ${recoveryMs} ms`);
      assert.equal(done.body.crawl.pages_crawled, 13);
      assert.equal(requests.filter((r) => r === '/robots.txt').length >= 2, true, 'the crawl started over');
      const row = await stack.db('audits').where({ id: body.audit_id }).first('attempts');
      assert.equal(row.attempts, 1, 'a lost worker is not an audit retry');
    } finally {
      await stopExtraApi(apiForQueue);
      await worker?.stop();
      await site.close();
    }
  });
});
