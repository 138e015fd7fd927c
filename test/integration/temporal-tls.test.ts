import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, type Config } from '../../src/config';
import { createLiveEngine } from '../../src/audits/live-engine';
import { startWorker } from '../../processes/audit-worker';
import { probeNamespace } from '../../temporal/connection';
import type { RunningWorker } from '../../temporal/worker';
import { api, getStack, newAccount, startExtraApi, testEnv, waitForAudit, workflowBundle } from '../support/stack';
import { makeTestPki, startGrpcProxy, type GrpcProxy, type TestPki } from '../support/tls-proxy';

/**
 * The service against a secured Temporal: the run's dev server behind a TLS-terminating gRPC proxy
 * (test/support/tls-proxy.ts) that demands a client certificate of a private CA, as a self-hosted
 * cluster with mTLS does; and API keys (Temporal Cloud), whose header the proxy records.
 */
describe('Temporal over mTLS and with an API key', function () {
  this.timeout(60_000);
  let dir: string;
  let pki: TestPki;
  let proxy: GrpcProxy;

  before(async () => {
    const stack = await getStack();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
    pki = makeTestPki(dir);
    proxy = await startGrpcProxy(stack.temporalAddress, {
      tls: { ...pki.server, ca: pki.ca, requireClientCert: true },
    });
  });

  after(async () => {
    await proxy?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The configuration an operator would give: certificate files and the server name of the cluster. */
  function securedConfig(stackConfig: Config, extra: Record<string, string> = {}): Config {
    const taskQueue = `audits-tls-${Math.random().toString(36).slice(2, 8)}`;
    const secured = loadConfig({
      ...testEnv,
      TEMPORAL_TLS_CERT: pki.client.certPath,
      TEMPORAL_TLS_KEY: pki.client.keyPath,
      TEMPORAL_TLS_CA: pki.client.caPath,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
      ...extra,
    });
    return { ...stackConfig, taskQueue, temporalSecurity: secured.temporalSecurity };
  }

  it('runs an audit with the API and a worker connected through mTLS, with the API key on every call', async () => {
    const stack = await getStack();
    const config = securedConfig(stack.config, { TEMPORAL_API_KEY: 'tls-test-key' });
    let worker: RunningWorker | null = null;
    try {
      worker = await startWorker({
        config,
        db: stack.db,
        clock: stack.clock,
        temporalAddress: proxy.address,
        engine: createLiveEngine(config),
        workflowBundle: await workflowBundle(),
        testWebhookMockUrl: `${stack.url}/mock/webhooks`,
      });
      const service = await startExtraApi({ config, temporalAddress: proxy.address }).catch((err: Error) => {
        throw new Error(`${err.message}; proxy: ${proxy.errors.join('; ')}`);
      });
      const account = await newAccount('pro');
      const { status, body } = await api('POST', '/v1/audits', {
        key: account.testKey,
        baseUrl: service.url,
        body: { domain: 'https://tls.example.com' },
      });
      assert.equal(status, 202);
      const done = await waitForAudit(account.testKey, body.audit_id, 30_000).catch((err: Error) => {
        throw new Error(`${err.message}; proxy: ${proxy.errors.join('; ')}`);
      });
      assert.equal(done.body.status, 'completed', done.text);
    } finally {
      await worker?.shutdown();
    }
    const byMethod = (method: string) => proxy.calls.filter((call) => call.method === method);
    // The API's client started the workflow, the worker (the Rust core's connection) ran its tasks.
    for (const method of ['StartWorkflowExecution', 'RespondWorkflowTaskCompleted']) {
      assert.ok(byMethod(method).length > 0, `${method} went through the proxy`);
      for (const call of byMethod(method)) {
        assert.equal(call.clientCn, 'audit-service');
        assert.equal(call.authorization, 'Bearer tls-test-key');
      }
    }
  });

  it('is refused without a client certificate, by the API client and by a worker connection', async () => {
    const noCert = loadConfig({ TEMPORAL_TLS_CA: pki.client.caPath, TEMPORAL_TLS_SERVER_NAME: 'localhost' });
    assert.equal(typeof noCert.temporalSecurity.tls, 'object');
    const before = proxy.calls.length;
    await assert.rejects(probeNamespace(proxy.address, 'default', noCert.temporalSecurity));
    await assert.rejects(
      NativeConnection.connect({ address: proxy.address, tls: noCert.temporalSecurity.tls }).then((c) => c.close()),
    );
    // (The API of the first test still calls, with its certificate.)
    const withoutCert = proxy.calls.slice(before).filter((call) => call.clientCn !== 'audit-service');
    assert.deepEqual(withoutCert, [], 'no call got through without the certificate');
  });

  it('sends TEMPORAL_API_KEY as a bearer token; it turns TLS on unless TEMPORAL_TLS=false', async () => {
    const stack = await getStack();
    assert.deepEqual(loadConfig({ TEMPORAL_API_KEY: 'k' }).temporalSecurity, { tls: {}, apiKey: 'k' });
    const plain = await startGrpcProxy(stack.temporalAddress);
    try {
      const security = loadConfig({ TEMPORAL_API_KEY: 'cloud-key', TEMPORAL_TLS: 'false' }).temporalSecurity;
      await probeNamespace(plain.address, 'default', security);
      assert.deepEqual(
        plain.calls.map((call) => [call.method, call.authorization]),
        [
          ['GetSystemInfo', 'Bearer cloud-key'],
          ['DescribeNamespace', 'Bearer cloud-key'],
        ],
      );
    } finally {
      await plain.close();
    }
  });

  it('stops the start with a clear error when a certificate file is missing or not PEM', () => {
    assert.throws(
      () => loadConfig({ TEMPORAL_TLS_CERT: path.join(dir, 'missing.pem'), TEMPORAL_TLS_KEY: pki.client.keyPath }),
      /TEMPORAL_TLS_CERT: cannot read .*missing\.pem \(ENOENT\)/,
    );
    fs.writeFileSync(path.join(dir, 'not-pem.txt'), 'hello');
    assert.throws(
      () => loadConfig({ TEMPORAL_TLS_CA: path.join(dir, 'not-pem.txt') }),
      /TEMPORAL_TLS_CA: .*not-pem\.txt is not a PEM file/,
    );
    assert.throws(
      () => loadConfig({ TEMPORAL_TLS_CERT: pki.client.certPath }),
      /TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together/,
    );
  });
});
