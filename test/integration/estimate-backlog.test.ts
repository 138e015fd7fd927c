import assert from 'node:assert/strict';
import { startWorker } from '../../processes/audit-worker';
import { type RunningApi } from '../../processes/api-service';
import { createLiveEngine } from '../../src/audits/live-engine';
import { api, getStack, newAccount, startExtraApi, stopExtraApi, waitForAudit, workflowBundle } from '../support/stack';

/** Milliseconds from just before the trigger call to the estimate it answered. */
async function estimateLead(
  key: string,
  domain: string,
  baseUrl?: string,
): Promise<{ auditId: string; leadMs: number }> {
  const before = Date.now();
  const res = await api('POST', '/v1/audits', { key, body: { domain }, baseUrl });
  assert.equal(res.status, 202, res.text);
  return { auditId: res.body.audit_id, leadMs: Date.parse(res.body.estimated_completion) - before };
}

describe('estimated_completion follows the backlog', function () {
  this.timeout(90_000);

  it('a trigger behind queued audits gets a later estimate than one on an idle stack', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    const inFlight = async () =>
      Number(
        (
          await stack
            .db('audits')
            .where({ mode: 'test' })
            .whereIn('status', ['queued', 'running'])
            .count<{ n: string }[]>('id as n')
        )[0].n,
      );
    // Idle: no test audit ahead (earlier tests' audits have drained), and the backlog re-read (every second).
    const idleBy = Date.now() + 30_000;
    while ((await inFlight()) > 0 && Date.now() < idleBy) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await inFlight(), 0, 'the stack is idle');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const idle = await estimateLead(account.testKey, 'https://estimate-idle.example.com');
    assert.equal((await waitForAudit(account.testKey, idle.auditId)).body.status, 'completed');

    // A backlog: audits whose task queue no worker polls yet stay queued.
    const taskQueue = 'estimate-backlog-test';
    const config = { ...stack.config, taskQueue };
    let unpolled: RunningApi | undefined;
    const queued: string[] = [];
    try {
      unpolled = await startExtraApi({ config });
      for (let i = 0; i < 30; i++)
        queued.push(
          (await estimateLead(account.testKey, `https://estimate-queued-${i}.example.com`, unpolled.url)).auditId,
        );
      assert.equal(await inFlight(), 30);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const behind = await estimateLead(account.testKey, 'https://estimate-behind.example.com');
      assert.ok(
        behind.leadMs > idle.leadMs + 1000,
        `behind 30 queued audits the estimate is ${behind.leadMs} ms ahead, idle ${idle.leadMs} ms`,
      );
      // The estimate holds nothing up: that audit runs as any other.
      assert.equal((await waitForAudit(account.testKey, behind.auditId)).body.status, 'completed');
    } finally {
      await stopExtraApi(unpolled);
      // The backlog drains once a worker serves its queue, leaving the shared stack idle again.
      const worker = await startWorker({
        config,
        db: stack.db,
        clock: stack.clock,
        temporalAddress: stack.temporalAddress,
        engine: createLiveEngine(config),
        workflowBundle: await workflowBundle(),
        testWebhookMockUrl: `${stack.url}/mock/webhooks`,
      });
      try {
        for (const auditId of queued)
          assert.equal((await waitForAudit(account.testKey, auditId, 60_000)).body.status, 'completed');
      } finally {
        await worker.shutdown();
      }
    }
  });
});
