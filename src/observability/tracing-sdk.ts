import os from 'node:os';
import { context, propagation, trace } from '@opentelemetry/api';
import { loggingErrorHandler, setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracingSettings } from './tracing-config';
import type { ActiveTracing } from './tracing';
import { traceOutboundPosts } from './outbound-tracing';

type ExporterOptions = NonNullable<ConstructorParameters<typeof JsonTraceExporter>[0]>;

/**
 * The OpenTelemetry SDK of one process (loaded by src/observability/tracing.ts only when tracing is on):
 * spans batched and sent over OTLP/HTTP, protobuf or JSON, to the configured collector; the W3C trace
 * context propagated through async calls (AsyncLocalStorage). Every problem the SDK meets — a
 * collector that is down, slow or refuses — goes to `warn`, never to the console.
 */
export function startTraceExport(
  settings: TracingSettings,
  serviceName: string,
  warn: (err: unknown) => void,
): ActiveTracing {
  const options: ExporterOptions = {
    url: settings.url,
    headers: settings.headers,
    timeoutMillis: settings.timeoutMs,
    compression: settings.compression as ExporterOptions['compression'],
  };
  const exporter =
    settings.protocol === 'http/json' ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options);
  // Bounded: with the collector away, at most 2,048 spans wait; later ones are dropped, not kept.
  const processor = new BatchSpanProcessor(exporter, {
    scheduledDelayMillis: settings.batchDelayMs,
    exportTimeoutMillis: settings.timeoutMs,
    maxQueueSize: 2048,
    maxExportBatchSize: 512,
  });
  const resource = defaultResource().merge(
    resourceFromAttributes({
      ...settings.resourceAttributes,
      'service.name': serviceName,
      'service.namespace': settings.serviceName,
      'service.instance.id': `${os.hostname()}:${process.pid}`,
    }),
  );
  setGlobalErrorHandler(warn);
  const provider = new NodeTracerProvider({
    resource,
    sampler: sampler(settings.sampler),
    spanProcessors: [processor],
  });
  provider.register();
  const stopOutbound = traceOutboundPosts();
  return {
    resource,
    exportSpan: (span) => processor.onEnd(span),
    async shutdown() {
      stopOutbound();
      await provider.shutdown().catch(warn);
      trace.disable();
      context.disable();
      propagation.disable();
      setGlobalErrorHandler(loggingErrorHandler());
    },
  };
}

function sampler({ parentBased, ratio }: TracingSettings['sampler']): Sampler {
  const root =
    ratio >= 1 ? new AlwaysOnSampler() : ratio <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return parentBased ? new ParentBasedSampler({ root }) : root;
}
