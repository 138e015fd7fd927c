import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { loadConfig, type Config } from '../../src/config';
import { S3ReportStorage } from '../../src/reports/s3-storage';
import { createReportStorage } from '../../src/reports/configured-storage';
import { FileReportStorage } from '../../src/reports/file-storage';
import { startReportWorker } from '../../processes/report-worker';
import { type RunningApi } from '../../processes/api-service';
import type { RunningWorker } from '../../temporal/worker';
import { reportWorkflowId } from '../../workflows/contracts';
import { startS3Server, type S3TestServer } from '../support/s3-server';
import { api, getStack, newAccount, startExtraApi, stopExtraApi, waitForAudit, workflowBundle } from '../support/stack';

describe('reports in S3-compatible object storage (versitygw)', function () {
  this.timeout(180_000);
  let s3: S3TestServer;
  let storage: S3ReportStorage;
  before(async function () {
    this.timeout(30 * 60_000); // the first run on a machine builds versitygw with Go
    s3 = await startS3Server();
    await s3.createBucket('reports');
    storage = new S3ReportStorage(s3.settings('reports', 'tenant-a/pdf'));
  });
  after(async () => {
    storage?.close();
    await s3?.destroy();
  });

  it('is chosen by REPORT_STORAGE_URL, with S3_ENDPOINT, S3_REGION and the AWS credentials; files stay the default', () => {
    const env = {
      REPORT_STORAGE_URL: 's3://reports/tenant-a/pdf/',
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: 'eu-west-3',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
    };
    const config = loadConfig(env);
    assert.deepEqual(config.reportObjectStore, {
      bucket: 'reports',
      prefix: 'tenant-a/pdf/',
      endpoint: s3.endpoint,
      region: 'eu-west-3',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    assert.ok(createReportStorage(config) instanceof S3ReportStorage);
    assert.ok(createReportStorage(loadConfig({})) instanceof FileReportStorage);
    assert.equal(loadConfig({}).reportObjectStore, null);
    assert.throws(
      () => loadConfig({ REPORT_STORAGE_URL: 'https://reports/x' }),
      /REPORT_STORAGE_URL must be s3:\/\/bucket/,
    );
    assert.throws(() => loadConfig({ ...env, S3_ENDPOINT: 'localhost:9000' }), /S3_ENDPOINT must be an http/);
    assert.throws(() => loadConfig({ ...env, AWS_SECRET_ACCESS_KEY: '' }), /must be set together/);
  });

  it('puts, checks, streams, replaces and deletes objects under its prefix', async () => {
    const key = 'ws_1/aud_1/r0-abc.pdf';
    const first = randomBytes(300_000);
    assert.equal(await storage.exists(key), false);
    assert.equal(await storage.open(key), null);
    await storage.put(key, first);
    assert.equal(await storage.exists(key), true);
    const opened = await storage.open(key);
    assert.equal(opened!.size, first.length);
    const chunks: Buffer[] = [];
    for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
    assert.ok(chunks.length > 1, 'the object arrives as a stream of chunks');
    assert.ok(Buffer.concat(chunks).equals(first));

    // Where it is: under the prefix in the bucket (the posix backend keeps objects as files).
    const onDisk = await readFile(dataPath(s3, 'reports/tenant-a/pdf', key));
    assert.ok(onDisk.equals(first));

    const second = Buffer.from('%PDF-1.7 replaced');
    await storage.put(key, second);
    assert.equal(await text((await storage.open(key))!.stream), '%PDF-1.7 replaced');
    await storage.delete(key);
    assert.equal(await storage.exists(key), false);
    await storage.delete(key); // no error for a missing object
    await assert.rejects(storage.put('../escape.pdf', second), /invalid report storage key/);
  });

  it('throws (rather than answering "missing") for a bucket that does not exist and a store that is down', async () => {
    const wrongBucket = new S3ReportStorage(s3.settings('no-such-bucket'));
    try {
      // (HEAD answers a bare 404 for a missing bucket too, so exists() cannot tell; a render's put() then fails.)
      await assert.rejects(wrongBucket.open('a/b.pdf'), /bucket does not exist/i);
      await assert.rejects(wrongBucket.put('a/b.pdf', Buffer.from('x')), /bucket does not exist/i);
    } finally {
      wrongBucket.close();
    }
    const down = new S3ReportStorage({ ...s3.settings('reports'), endpoint: 'http://127.0.0.1:9' });
    try {
      await assert.rejects(down.exists('a/b.pdf'));
      await assert.rejects(down.put('a/b.pdf', Buffer.from('x')));
    } finally {
      down.close();
    }
  });

  describe('the service with REPORT_STORAGE_URL', () => {
    let service: RunningApi;
    let worker: RunningWorker;
    let config: Config;
    before(async () => {
      const stack = await getStack();
      // Its own report queue: this API's renders go to this worker, which stores in the bucket.
      config = {
        ...stack.config,
        reportTaskQueue: `reports-s3-${randomBytes(4).toString('hex')}`,
        reportObjectStore: s3.settings('reports', 'service'),
        reportWaitMs: 1500,
      };
      service = await startExtraApi({ config });
      worker = await startReportWorker({
        config,
        db: stack.db,
        clock: stack.clock,
        temporalAddress: stack.temporalAddress,
        workflowBundle: await workflowBundle(),
      });
    });
    after(async () => {
      await stopExtraApi(service);
      await worker?.shutdown();
    });

    const completedAudit = async (key: string, domain: string) => {
      const trigger = await api('POST', '/v1/audits', { key, body: { domain }, baseUrl: service.url });
      assert.equal(trigger.status, 202, trigger.text);
      assert.equal((await waitForAudit(key, trigger.body.audit_id)).body.status, 'completed');
      return trigger.body.audit_id as string;
    };
    const reportLink = async (key: string, auditId: string, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const response = await api('GET', `/v1/audits/${auditId}/pdf`, { key, baseUrl: service.url });
        if (response.status !== 202 || Date.now() > deadline) return response;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };

    it('stores the rendered PDF in the bucket and streams it from there through the signed link', async () => {
      const { db } = await getStack();
      const account = await newAccount('pro');
      const auditId = await completedAudit(account.testKey, 'https://s3-report.example.com');
      const link = await reportLink(account.testKey, auditId);
      assert.equal(link.status, 200, link.text);
      const row = await db('audit_reports').where({ audit_id: auditId }).first();
      const stored = await readFile(dataPath(s3, 'reports/service', row.storage_key));
      assert.equal(createHash('sha256').update(stored).digest('hex'), row.sha256, 'the bucket holds the PDF');

      const download = await fetch(link.body.url);
      assert.equal(download.status, 200);
      assert.equal(download.headers.get('content-type'), 'application/pdf');
      assert.equal(Number(download.headers.get('content-length')), stored.length);
      const bytes = Buffer.from(await download.arrayBuffer());
      assert.ok(bytes.equals(stored), 'the download is the object, byte for byte');
      assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');

      // The object is gone from the bucket: the link answers the API's clean 404, not a 5xx.
      await new S3ReportStorage(config.reportObjectStore!).delete(row.storage_key);
      const missing = await fetch(link.body.url);
      assert.equal(missing.status, 404);
      const body = (await missing.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'audit_not_found');
      assert.match(body.error.message, /no longer exists/);
    });

    it('retries a render while the store is down, and completes it once the store is back', async () => {
      const { service: shared } = await getStack();
      const account = await newAccount('pro');
      const auditId = await completedAudit(account.testKey, 'https://s3-outage.example.com');
      await s3.stop();
      try {
        const waiting = await api('GET', `/v1/audits/${auditId}/pdf`, { key: account.testKey, baseUrl: service.url });
        assert.equal(waiting.status, 202, waiting.text);
        // The render activity failed against the store and is scheduled again, the workflow still running.
        const handle = shared.temporal.client.workflow.getHandle(reportWorkflowId(auditId, 0));
        const deadline = Date.now() + 60_000;
        let attempt = 0;
        while (attempt < 2 && Date.now() < deadline) {
          const described = await handle.describe();
          assert.equal(described.status.name, 'RUNNING');
          attempt = described.raw.pendingActivities?.[0]?.attempt ?? 0;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        assert.ok(attempt >= 2, `the render was retried (attempt ${attempt})`);
      } finally {
        await s3.start();
      }
      const link = await reportLink(account.testKey, auditId);
      assert.equal(link.status, 200, link.text);
      const download = await fetch(link.body.url);
      assert.equal(download.status, 200);
      assert.equal(
        Buffer.from(await download.arrayBuffer())
          .subarray(0, 5)
          .toString(),
        '%PDF-',
      );
    });
  });
});

/** Where versitygw's posix backend keeps an object: <data>/<bucket>/<key>. */
function dataPath(s3: S3TestServer, bucketAndPrefix: string, key: string): string {
  return `${s3.dataDir}/${bucketAndPrefix}/${key}`;
}
