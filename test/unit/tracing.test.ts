import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { context, trace } from '@opentelemetry/api';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/observability/logger';
import { tracingSettings, type TracingSettings } from '../../src/observability/tracing-config';
import { startTracing, tracingActive } from '../../src/observability/tracing';
import { traceRequests } from '../../src/observability/http-tracing';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { until } from '../support/receiver';

const ROOT = path.join(__dirname, '..', '..');

function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { log: createLogger({ level: 'info', destination }), lines };
}

function settings(overrides: Record<string, string>): TracingSettings {
  return tracingSettings({ OTEL_BSP_SCHEDULE_DELAY: '50', ...overrides })!;
}

describe('tracing: settings from the standard OTEL_* variables', () => {
  it('is off without an OTLP endpoint, or when disabled', () => {
    assert.equal(loadConfig({}).tracing, null);
    assert.equal(tracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), null);
    assert.equal(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), null);
    assert.equal(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }), null);
  });

  it('reads the endpoint, protocol, headers, time-out, service name, resource and sampler', () => {
    const parsed = tracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.internal:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-tenant=acme',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=traces',
      OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource,deployment.environment.name=staging',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    assert.deepEqual(parsed, {
      url: 'https://collector.internal:4318/v1/traces',
      protocol: 'http/json',
      headers: { authorization: 'Bearer abc', 'x-tenant': 'traces' },
      timeoutMs: 3000,
      compression: 'gzip',
      serviceName: 'from-resource',
      resourceAttributes: { 'service.name': 'from-resource', 'deployment.environment.name': 'staging' },
      sampler: { parentBased: true, ratio: 0.25 },
      batchDelayMs: 5000,
    });
    const signal = tracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/custom/path',
      OTEL_SERVICE_NAME: 'audits',
    })!;
    assert.equal(signal.url, 'http://tempo:4318/custom/path');
    assert.equal(signal.protocol, 'http/protobuf');
    assert.equal(signal.serviceName, 'audits');
    assert.deepEqual(signal.sampler, { parentBased: true, ratio: 1 });
  });

  it('refuses what it cannot do, naming the variable and never a header value', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    assert.throws(() => tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), /http\/protobuf/);
    assert.throws(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' }), /http:\/\/ or https/);
    assert.throws(() => tracingSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'jaeger_remote' }), /OTEL_TRACES_SAMPLER/);
    assert.throws(() =>
      tracingSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }),
    );
    assert.throws(
      () => tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'api-key=%E0%A4%A-secret' }),
      (err: Error) => /OTEL_EXPORTER_OTLP_HEADERS/.test(err.message) && !err.message.includes('secret'),
    );
  });
});

describe('tracing: export', function () {
  this.timeout(20_000);
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(() => receiver.close());
  afterEach(() => assert.equal(tracingActive(), null, 'each test stops its tracing'));

  it('loads none of the SDK when off: the API and worker code run without it', () => {
    const script = `
      require('./processes/api-service');
      require('./processes/audit-worker');
      const { startTracing } = require('./src/observability/tracing');
      const { loadConfig } = require('./src/config');
      const { connectClient } = require('./temporal/connection');
      startTracing(loadConfig({}).tracing, 'api', console);
      const loaded = Object.keys(require.cache).filter((f) =>
        /@opentelemetry[\\/](sdk-trace-node|exporter-|otlp-)|interceptors-opentelemetry|observability[\\/]tracing-sdk/.test(f));
      process.stdout.write(JSON.stringify(loaded));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), []);
  });

  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`sends spans over OTLP/HTTP (${protocol}) with service.name <OTEL_SERVICE_NAME>-<role> and the configured headers`, async () => {
      const before = receiver.spans.length;
      const { log } = capturedLogger();
      const tracing = startTracing(
        settings({
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%C3%A9y',
          OTEL_SERVICE_NAME: 'audit-unit',
        }),
        'worker',
        log,
      );
      const tracer = trace.getTracer('unit');
      tracer.startActiveSpan('outer', (outer) => {
        tracer.startSpan('inner').end();
        outer.end();
      });
      await tracing.stop();
      const spans = receiver.spans.slice(before);
      assert.deepEqual(spans.map((s) => s.name).sort(), ['inner', 'outer']);
      const [inner, outer] = [spans.find((s) => s.name === 'inner')!, spans.find((s) => s.name === 'outer')!];
      assert.equal(inner.traceId, outer.traceId);
      assert.equal(inner.parentSpanId, outer.spanId);
      assert.equal(outer.service, 'audit-unit-worker');
      assert.equal(outer.resource['service.namespace'], 'audit-unit');
      const request = receiver.requests.at(-1)!;
      assert.equal(request.path, '/v1/traces');
      assert.match(request.contentType, protocol === 'http/json' ? /application\/json/ : /application\/x-protobuf/);
      assert.equal(request.headers['x-collector-key'], 'kéy');
    });
  }

  it('names the API request span by its route, and records no header, query or path', async () => {
    const before = receiver.spans.length;
    const { log } = capturedLogger();
    const tracing = startTracing(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }), 'api', log);
    const app = new Koa();
    const router = new Router();
    router.get('/v1/audits/:id', (ctx) => {
      ctx.body = { traced: trace.getSpan(context.active())?.spanContext().traceId };
    });
    app.use(traceRequests()).use(router.routes());
    const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/audits/aud_SECRETID?key=rsk_SECRET`;
      const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const response = await fetch(url, {
        headers: { authorization: 'Bearer svc_test_SECRET', traceparent: incoming },
      });
      const { traced } = (await response.json()) as { traced: string };
      await tracing.stop();
      const [span] = receiver.spans.slice(before);
      assert.equal(span!.name, 'GET /v1/audits/:id');
      assert.equal(span!.traceId, traced, 'the handler runs inside the span');
      assert.notEqual(span!.traceId, '0af7651916cd43dd8448eb211c80319c', 'a caller cannot choose the trace');
      assert.equal(span!.parentSpanId, undefined);
      assert.deepEqual(span!.attributes, {
        'http.request.method': 'GET',
        'http.route': '/v1/audits/:id',
        'http.response.status_code': 200,
      });
      assert.ok(!JSON.stringify(span).includes('SECRET'));
    } finally {
      server.close();
      await tracing.stop();
    }
  });

  it('with the collector down: the service goes on, one JSON warning a minute, nothing on the console', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const { log, lines } = capturedLogger();
    const console: string[] = [];
    const writes = { out: process.stdout.write, err: process.stderr.write };
    const capture = (chunk: unknown) => (console.push(String(chunk)), true);
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    try {
      const tracing = startTracing(
        settings({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closedPort}`, OTEL_EXPORTER_OTLP_TIMEOUT: '1000' }),
        'api',
        log,
      );
      const tracer = trace.getTracer('unit');
      for (let batch = 0; batch < 3; batch++) {
        tracer.startSpan(`span ${batch}`).end();
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      await until(() => lines.length > 0, 10_000, 'a warning');
      await tracing.stop();
    } finally {
      process.stdout.write = writes.out;
      process.stderr.write = writes.err;
    }
    assert.deepEqual(console, []);
    assert.equal(lines.length, 1, lines.join('\n'));
    const warning = JSON.parse(lines[0]!);
    assert.equal(warning.level, 40);
    assert.match(warning.msg, /trace export failed/);
    assert.match(warning.reason, /ECONNREFUSED/);
    assert.ok(!lines[0]!.includes('    at '), 'no stack trace');
  });
});
