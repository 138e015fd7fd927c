import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';
import { serveSlowSite, type LocalSite } from '../support/sites';
import { pidOfIdentity, runAuditStarts, startRoleProcess, type RoleProcess } from '../support/cluster';

/**
 * Several machines (docs/operations.md): two `SERVICE_ROLES=api` processes and two
 * `SERVICE_ROLES=worker` processes, all separate `npm start`s against the run's one Temporal and
 * one Postgres (none of them starts embedded servers). Live audits triggered through both APIs are
 * worked on by both workers, as Temporal history's worker identities show.
 */
describe('a cluster of two API and two worker processes', function () {
  this.timeout(600_000);
  const machines: RoleProcess[] = [];
  let site: LocalSite;
  let apis: RoleProcess[];
  let workers: RoleProcess[];
  let dataDir: string;

  before(async () => {
    const stack = await getStack();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-test-'));
    // Its own task queue: the in-process worker of the shared test stack must not take these audits.
    const env = {
      DATABASE_URL: stack.config.databaseUrl!,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      TEMPORAL_TASK_QUEUE: `audits-cluster-${process.pid}`,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      // Audit workers only: the browser stage's own role is not part of this cluster.
      BROWSER_STAGE: 'off',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
    };
    // A slow site (150 ms a page): crawls overlap, so both workers' pollers get tasks.
    site = await serveSlowSite(150);
    const started = await Promise.all([
      startRoleProcess('api', env),
      startRoleProcess('api', env),
      startRoleProcess('worker', env),
      startRoleProcess('worker', env),
    ]);
    machines.push(...started);
    apis = started.slice(0, 2);
    workers = started.slice(2);
  });

  after(async () => {
    await Promise.all(machines.map((machine) => machine.stop()));
    await site?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs each role alone: an API process runs no worker, a worker process serves no API', async () => {
    const health = await api('GET', '/healthz', { baseUrl: apis[0]!.url });
    assert.deepEqual(health.body.components, { api: 'up', temporal: 'up' });
    assert.equal(apis[0]!.auditWorkerPid(), undefined);
    for (const worker of workers) {
      assert.ok(worker.auditWorkerPid(), 'an audit worker child process runs');
      await assert.rejects(fetch(`${worker.url}/healthz`), 'no API listens on a worker machine');
      assert.doesNotMatch(worker.output(), /embedded Postgres|Temporal dev server at/);
    }
  });

  it('completes live audits triggered through both APIs, worked on by both workers', async () => {
    const stack = await getStack();
    const workerPids = new Set(workers.map((worker) => worker.auditWorkerPid()));
    const servedBy = new Map<number, number>();
    let viaApi = [0, 0];
    // Rounds of four concurrent audits (two through each API) until both workers have run some.
    for (let round = 0; round < 4 && servedBy.size < 2; round++) {
      const triggered = await Promise.all(
        [0, 1, 0, 1].map(async (which) => {
          const account = await newAccount('pro');
          const { status, body, text } = await api('POST', '/v1/audits', {
            key: account.liveKey,
            baseUrl: apis[which]!.url,
            body: { domain: site.origin },
          });
          assert.equal(status, 202, text);
          viaApi = viaApi.map((n, i) => (i === which ? n + 1 : n));
          return { key: account.liveKey, auditId: body.audit_id as string };
        }),
      );
      for (const { key, auditId } of triggered) {
        const done = await waitForAudit(key, auditId, 90_000);
        assert.equal(done.body.status, 'completed', done.text);
        const starts = await runAuditStarts(stack.service.temporal.client, auditId);
        const pid = pidOfIdentity(starts.at(-1)!.identity);
        assert.ok(workerPids.has(pid), `audit run by a cluster worker (${starts.at(-1)!.identity})`);
        servedBy.set(pid, (servedBy.get(pid) ?? 0) + 1);
      }
    }
    console.log(
      `      audits via API 1 / API 2: ${viaApi.join(' / ')}; run by worker 1 / worker 2: ${[...workerPids]
        .map((pid) => servedBy.get(pid!) ?? 0)
        .join(' / ')}`,
    );
    assert.equal(servedBy.size, 2, 'both workers ran audits');
  });
});
