import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { crawlWorkflowId } from '../../workflows/contracts';
import { api, getStack, newAccount, startExtraApi, waitForAudit } from '../support/stack';
import { serveSlowSite } from '../support/sites';
import { until } from '../support/receiver';
import { activityStarts, pidOfIdentity, startRoleProcess, type RoleProcess } from '../support/cluster';

/** Whether a new TCP connection to the port is accepted, or the error code it gets. */
function connectionOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** SIGTERM, as an orchestrator stops a machine for an upgrade (docs/operations.md "Upgrades"). */
describe('graceful shutdown on SIGTERM', function () {
  this.timeout(600_000);
  const machines: RoleProcess[] = [];
  let dataDir: string;
  let env: Record<string, string>;

  before(async () => {
    const stack = await getStack();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'graceful-test-'));
    env = {
      DATABASE_URL: stack.config.databaseUrl!,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      // Audit workers only: the browser stage's own role is not part of this cluster.
      BROWSER_STAGE: 'off',
      DATA_DIR: dataDir,
    };
  });

  after(async () => {
    await Promise.all(machines.map((machine) => machine.stop()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an API stops accepting connections, finishes the request in flight, then exits', async () => {
    const machine = await startRoleProcess('api', env);
    machines.push(machine);
    const account = await newAccount('pro');
    const body = JSON.stringify({ domain: 'https://drain.example.com' });
    const { port } = new URL(machine.url);
    // A request whose body is still arriving when SIGTERM comes.
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/audits',
      headers: {
        Authorization: `Bearer ${account.testKey}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
      },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      request.on('error', reject);
    });
    // Awaited below; should this test fail before then, its hang-up must not land in the next test.
    answered.catch(() => undefined);
    request.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 500));
    machine.signal('SIGTERM');
    // A new TCP connection each time (fetch would reuse a pooled keep-alive one). One that reached the
    // listen queue as the listener closed is reset; after that, every new connection is refused.
    const outcomes: string[] = [];
    await until(
      () => connectionOutcome(Number(port)).then((o) => outcomes.push(o) > 0 && o === 'ECONNREFUSED'),
      15_000,
      'new connections to be refused',
    );
    assert.deepEqual(
      outcomes.filter((o) => !['connected', 'ECONNRESET', 'ECONNREFUSED'].includes(o)),
      [],
      outcomes.join(', '),
    );
    request.end(body.slice(10));
    const { status, text } = await answered;
    assert.equal(status, 202, text);
    const auditId = JSON.parse(text).audit_id as string;
    assert.equal((await waitForAudit(account.testKey, auditId)).body.status, 'completed');
    assert.equal(await machine.exited, 0);
  });

  it('a worker stops polling and hands its running crawl back: the other worker completes the audit in the same attempt', async () => {
    const stack = await getStack();
    const taskQueue = `audits-graceful-${process.pid}`;
    // Pages answer after 1.5 s: the crawl outlasts the 1 s grace after SIGTERM.
    const site = await serveSlowSite(1500);
    try {
      const workerEnv = { ...env, TEMPORAL_TASK_QUEUE: taskQueue, WORKER_SHUTDOWN_GRACE_MS: '1000' };
      const workers = await Promise.all([startRoleProcess('worker', workerEnv), startRoleProcess('worker', workerEnv)]);
      machines.push(...workers);
      const service = await startExtraApi({ config: { ...stack.config, taskQueue } });
      const account = await newAccount('pro');
      const { body } = await api('POST', '/v1/audits', {
        key: account.liveKey,
        baseUrl: service.url,
        body: { domain: site.origin },
      });
      await until(() => site.requests.some((r) => r.startsWith('/p')), 30_000, 'the crawl to be under way');
      // The crawl's steps run in the attempt's CrawlWorkflow.
      const generation = (await stack.db('audits').where({ id: body.audit_id }).first('run_generation')).run_generation;
      const crawlId = crawlWorkflowId(body.audit_id, generation, 1);
      const handle = stack.service.temporal.client.workflow.getHandle(crawlId);
      const running = (await handle.describe()).raw.pendingActivities?.find((a) => a.lastWorkerIdentity);
      const busyPid = pidOfIdentity(running?.lastWorkerIdentity ?? '');
      const busy = workers.find((worker) => worker.auditWorkerPid() === busyPid)!;
      const other = workers.find((worker) => worker !== busy)!;
      assert.ok(busy, `the crawl runs on one of the two workers (${running?.lastWorkerIdentity})`);

      const terminatedAt = Date.now();
      busy.signal('SIGTERM');
      // When the next attempt started, and where (the server's record of the pending activity).
      const restarted = await until(
        async () => {
          const pending = (await handle.describe()).raw.pendingActivities?.find((a) => (a.attempt ?? 0) >= 2);
          const startedAt = pending?.lastStartedTime;
          if (!pending || (pending.attempt ?? 0) < 2 || !startedAt) return false;
          return {
            identity: pending.lastWorkerIdentity ?? '',
            at: Number(startedAt.seconds) * 1000 + Math.floor((startedAt.nanos ?? 0) / 1e6),
          };
        },
        60_000,
        'the crawl to start again',
      );
      const code = await busy.exited;
      const exitedAfterMs = Date.now() - terminatedAt;
      const done = await waitForAudit(account.liveKey, body.audit_id, 90_000);
      assert.equal(done.body.status, 'completed', done.text);
      assert.equal(code, 0, busy.output());

      // The step the stopping worker handed back, started again on the other worker.
      const starts = await activityStarts(stack.service.temporal.client, crawlId, 'crawlPageStep');
      const last = starts.find((start) => start.attempt >= 2)!;
      console.log(
        `      SIGTERM → worker exited ${(exitedAfterMs / 1000).toFixed(1)} s; crawl restarted on the other worker ${(
          (restarted.at - terminatedAt) /
          1000
        ).toFixed(1)} s after SIGTERM (grace 1 s, heartbeat time-out ${stack.config.auditHeartbeatTimeoutMs / 1000} s)`,
      );
      assert.equal(pidOfIdentity(restarted.identity), other.auditWorkerPid(), 'restarted on the other worker');
      assert.equal(pidOfIdentity(last.identity), other.auditWorkerPid(), 'completed by the other worker');
      assert.equal(last.attempt, 2);
      // Handed back by the stopping worker, not found lost by the heartbeat time-out.
      assert.match(last.lastFailure ?? '', /Worker is shutting down/);
      const row = await stack.db('audits').where({ id: body.audit_id }).first('attempts');
      assert.equal(row.attempts, 1, 'a stopped worker is not an audit retry');
    } finally {
      await site.close();
    }
  });
});
