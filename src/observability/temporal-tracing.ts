import { createTraceState, type SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type {
  OpenTelemetrySinks,
  SerializableSpan,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import { tracingActive, type ActiveTracing } from './tracing';

/**
 * Temporal's OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry), wired in only while
 * this process exports traces: a client's workflow start gets a span and hands its context to the
 * workflow in the start's headers; the workflow's span (made in its sandbox, handed out through a
 * sink) parents the activities' spans, which the worker's interceptors make.
 */

/** The interceptors of a Temporal client in a traced process; undefined when tracing is off. */
export function tracingClientInterceptors(): { workflow: WorkflowClientInterceptor[] } | undefined {
  if (!tracingActive()) return undefined;
  const { OpenTelemetryWorkflowClientInterceptor } =
    require('@temporalio/interceptors-opentelemetry/lib/client') as typeof import('@temporalio/interceptors-opentelemetry/lib/client');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/** A worker's activity interceptors and the sink of its workflow spans, in a traced process; null when off. */
export function tracingWorkerOptions(): {
  activity: ActivityInterceptorsFactory[];
  sinks: InjectedSinks<OpenTelemetrySinks>;
} | null {
  const active = tracingActive();
  if (!active) return null;
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } =
    require('@temporalio/interceptors-opentelemetry/lib/worker') as typeof import('@temporalio/interceptors-opentelemetry/lib/worker');
  return {
    activity: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    // Not called while a workflow is replayed: its spans were exported when the history was made.
    sinks: { exporter: { export: { fn: (info, spans) => exportWorkflowSpans(active, info, spans) } } },
  };
}

/** The workflow interceptor module to bundle with the workflow code when the workers will trace. */
export function tracingWorkflowModules(tracing: boolean): string[] {
  return tracing ? [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')] : [];
}

/**
 * The sandbox's spans are those of the OpenTelemetry 1.x SDK the interceptors package bundles
 * (`parentSpanId`, `instrumentationLibrary`); the exporter here is 2.x (`parentSpanContext`,
 * `instrumentationScope`): translated, with the workflow's ids added.
 */
function exportWorkflowSpans(active: ActiveTracing, info: WorkflowInfo, spans: SerializableSpan[]): void {
  for (const span of spans) {
    const { traceState, ...ids } = span.spanContext;
    const spanContext: SpanContext = { ...ids, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
    const readable: ReadableSpan = {
      name: span.name,
      kind: span.kind,
      spanContext: () => spanContext,
      parentSpanContext: span.parentSpanId
        ? { traceId: ids.traceId, spanId: span.parentSpanId, traceFlags: ids.traceFlags }
        : undefined,
      startTime: span.startTime,
      endTime: span.endTime,
      status: span.status,
      attributes: {
        ...span.attributes,
        temporalWorkflowId: info.workflowId,
        run_id: info.runId,
        temporalWorkflowType: info.workflowType,
        temporalTaskQueue: info.taskQueue,
      },
      links: span.links,
      events: span.events,
      duration: span.duration,
      ended: span.ended,
      resource: active.resource,
      instrumentationScope: span.instrumentationLibrary,
      droppedAttributesCount: span.droppedAttributesCount,
      droppedEventsCount: span.droppedEventsCount,
      droppedLinksCount: span.droppedLinksCount,
    };
    active.exportSpan(readable);
  }
}
