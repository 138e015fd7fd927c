// Integration test: runs the real `temporal server start-dev` (found or built by ensureTemporalCli).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { ensureTemporalCli } from '../../src/setup/temporal-cli';
import { connectClient, TemporalClientBundle } from '../../temporal/connection';
import { DevServer, startDevServer } from '../../src/setup/temporal-dev-server';
import { AUDIT_STATUS, WORKSPACE_ID } from '../../workflows/contracts';
import { registerSearchAttributes, SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';

const KEYWORD = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD

/** A port free on 127.0.0.1 right now (and, when asked, port + 1000 too, for the Web UI). */
async function freePort(withUi = false): Promise<number> {
  for (;;) {
    const port = await listenOnce(0);
    if (!withUi || port + 1000 > 65535) {
      if (!withUi) return port;
      continue;
    }
    try {
      await listenOnce(port + 1000);
      return port;
    } catch {
      // UI port taken: try another
    }
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const { port: actual } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(actual));
    });
  });
}

/** Status of a GET, on a one-off socket (a pooled keep-alive socket would keep mocha alive). */
function httpStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

async function customAttributes(bundle: TemporalClientBundle, namespace: string): Promise<Record<string, number>> {
  const res = await bundle.connection.operatorService.listSearchAttributes({ namespace });
  return { ...(res.customAttributes ?? {}) } as Record<string, number>;
}

function assertAllRegistered(attrs: Record<string, number>): void {
  for (const name of Object.keys(SEARCH_ATTRIBUTES)) {
    assert.equal(attrs[name], KEYWORD, `search attribute ${name} is registered as Keyword`);
  }
}

describe('src/setup/temporal-dev-server (integration)', function () {
  this.timeout(120000);

  let cliPath: string;
  let tmp: string;
  const servers: DevServer[] = [];
  const bundles: TemporalClientBundle[] = [];
  const serverLog: string[] = [];

  async function start(opts: Partial<Parameters<typeof startDevServer>[0]> & { port: number }): Promise<DevServer> {
    const t0 = Date.now();
    const server = await startDevServer({ cliPath, log: (l) => serverLog.push(l), ...opts });
    console.log(`      dev server ready in ${Date.now() - t0} ms`);
    servers.push(server);
    return server;
  }

  async function connect(address: string, namespace = 'default'): Promise<TemporalClientBundle> {
    const bundle = await connectClient(address, namespace);
    bundles.push(bundle);
    return bundle;
  }

  before(async function () {
    cliPath = await ensureTemporalCli((m) => console.log(`      [temporal-cli] ${m}`));
    tmp = await mkdtemp(path.join(os.tmpdir(), 'temporal-dev-server-test-'));
  });

  afterEach(async function () {
    await Promise.all(bundles.splice(0).map((b) => b.connection.close().catch(() => {})));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  after(async function () {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('registers the search attributes, keeps workflows across a restart on the same db file', async function () {
    const dbFile = path.join(tmp, 'temporal.sqlite');
    const port = await freePort(true);

    // --- first run, with the Web UI
    const first = await start({ port, dbFile });
    assert.equal(first.address, `127.0.0.1:${port}`);
    assert.equal(first.uiUrl, `http://127.0.0.1:${port + 1000}`);
    assert.equal(await httpStatus(first.uiUrl!), 200, 'Web UI answers');

    let bundle = await connect(first.address);
    assertAllRegistered(await customAttributes(bundle, 'default'));

    // Idempotent: calling it again (twice, concurrently) on a server that has them all is a no-op.
    await Promise.all([
      registerSearchAttributes(bundle.connection, 'default'),
      registerSearchAttributes(bundle.connection, 'default'),
    ]);
    assertAllRegistered(await customAttributes(bundle, 'default'));

    // A workflow nobody will ever run (no worker polls this queue): it just stays RUNNING.
    const workflowId = `restart-check-${Date.now()}`;
    const handle = await bundle.client.workflow.start('NoSuchWorkflow', {
      taskQueue: 'nobody-polls-this-queue',
      workflowId,
      args: [],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: AUDIT_STATUS, value: 'queued' },
        { key: WORKSPACE_ID, value: 'ws_test' },
      ]),
    });
    const runId = handle.firstExecutionRunId;

    // Simulate a db file created before an attribute existed: the CLI's --search-attribute flags
    // only apply to namespaces it creates, so startDevServer must add it back on the next start.
    await bundle.connection.operatorService.removeSearchAttributes({
      namespace: 'default',
      searchAttributes: ['AuditMode'],
    });
    assert.equal((await customAttributes(bundle, 'default')).AuditMode, undefined);

    await bundle.connection.close();
    bundles.splice(bundles.indexOf(bundle), 1);
    const t0 = Date.now();
    await first.stop();
    console.log(`      dev server stopped in ${Date.now() - t0} ms`);
    await first.stop(); // idempotent

    // --- second run on the same db file (headless this time)
    const second = await start({ port, dbFile, headless: true });
    assert.equal(second.uiUrl, null);
    bundle = await connect(second.address);
    assertAllRegistered(await customAttributes(bundle, 'default'));

    const description = await bundle.client.workflow.getHandle(workflowId).describe();
    assert.equal(description.runId, runId);
    assert.equal(description.type, 'NoSuchWorkflow');
    assert.equal(description.status.name, 'RUNNING');
    assert.equal(description.typedSearchAttributes.get(AUDIT_STATUS), 'queued');

    // The attributes are really usable in visibility queries.
    const found: string[] = [];
    for await (const wf of bundle.client.workflow.list({
      query: `AuditStatus = "queued" AND WorkspaceId = "ws_test"`,
    })) {
      found.push(wf.workflowId);
    }
    assert.deepEqual(found, [workflowId]);
  });

  it('loses workflows across a restart without a db file (in-memory)', async function () {
    const port = await freePort();
    const first = await start({ port, headless: true });
    let bundle = await connect(first.address);
    const workflowId = `in-memory-${Date.now()}`;
    await bundle.client.workflow.start('NoSuchWorkflow', {
      taskQueue: 'nobody-polls-this-queue',
      workflowId,
      args: [],
    });
    await bundle.connection.close();
    bundles.splice(bundles.indexOf(bundle), 1);
    await first.stop();

    const second = await start({ port, headless: true });
    bundle = await connect(second.address);
    await assert.rejects(bundle.client.workflow.getHandle(workflowId).describe(), WorkflowNotFoundError);
  });

  it('serves a custom namespace with the search attributes registered in it', async function () {
    const port = await freePort();
    const server = await start({ port, headless: true, namespace: 'audit-it' });
    const bundle = await connect(server.address, 'audit-it');
    assertAllRegistered(await customAttributes(bundle, 'audit-it'));
    await registerSearchAttributes(bundle.connection, 'audit-it');
    assertAllRegistered(await customAttributes(bundle, 'audit-it'));
  });

  it('starts the server again when it panics at start (an internal port taken meanwhile), and only then', async function () {
    // The real CLI behind a wrapper whose first run panics as the server does when a port it chose is gone.
    const runs = path.join(tmp, 'runs');
    const wrapper = path.join(tmp, 'temporal-panicking-once');
    await writeFile(
      wrapper,
      [
        '#!/bin/sh',
        `echo run >> '${runs}'`,
        `if [ "$(wc -l < '${runs}')" -eq 1 ]; then`,
        "  echo 'panic: listen tcp 127.0.0.1:40001: bind: address already in use' >&2",
        '  echo "goroutine 1 [running]:" >&2',
        '  exit 2',
        'fi',
        `exec '${cliPath}' "$@"`,
      ].join('\n'),
      { mode: 0o755 },
    );
    const lines: string[] = [];
    const server = await start({ port: await freePort(), headless: true, cliPath: wrapper, log: (l) => lines.push(l) });
    assert.equal((await readFile(runs, 'utf8')).trim().split('\n').length, 2, 'started twice');
    assert.ok(
      lines.some((l) => /panic: listen tcp.*starting it again/.test(l)),
      `the first start's panic is logged: ${lines.join(' | ')}`,
    );
    const bundle = await connect(server.address);
    assertAllRegistered(await customAttributes(bundle, 'default'));
  });

  it('fails fast with the server output when the port is taken', async function () {
    const accepted = new Set<net.Socket>();
    const blocker = net.createServer((socket) => accepted.add(socket));
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      // A start timeout longer than this test may run: only the server's exit can settle the start in
      // time, and the message says so (a timeout would say "did not answer within").
      await assert.rejects(
        startDevServer({ cliPath, port, headless: true, startTimeoutMs: 10 * 60_000 }),
        /exited before it was ready \(exit \d+\):[\s\S]*can't set frontend port/,
      );
    } finally {
      for (const socket of accepted) socket.destroy();
      blocker.close();
    }
  });
});
