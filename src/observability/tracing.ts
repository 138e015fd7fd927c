import type { Logger } from 'pino';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { TracingSettings } from './tracing-config';

/** The processes that export spans, told apart by service.name (`<OTEL_SERVICE_NAME>-<role>`). */
export type TracedRole = 'api' | 'worker' | 'reports' | 'browser';

/** This process's trace export, while it runs. */
export interface ActiveTracing {
  /** service.name with the role, and the other resource attributes every span of this process carries. */
  resource: Resource;
  /** Queues a finished span for export (the workflow spans, which Temporal's sandbox hands over through a sink). */
  exportSpan(span: ReadableSpan): void;
  shutdown(): Promise<void>;
}

/** At most one warning a minute about a collector that does not answer. */
const WARN_EVERY_MS = 60_000;

let active: ActiveTracing | null = null;

/** The running trace export, or null when tracing is off (then nothing adds interceptors or middleware). */
export function tracingActive(): ActiveTracing | null {
  return active;
}

/**
 * Starts exporting this process's spans over OTLP/HTTP (once per process). With `settings` null
 * (OTEL_EXPORTER_OTLP_ENDPOINT unset) it does nothing and loads none of the SDK: tracing off costs
 * nothing. `stop()` sends what is still queued, then turns tracing off.
 */
export function startTracing(
  settings: TracingSettings | null,
  role: TracedRole,
  log: Logger,
): { stop(): Promise<void> } {
  if (!settings || active) return { stop: async () => undefined };
  // Loaded only when tracing is on: the SDK and the exporters are a few megabytes of JavaScript.
  const { startTraceExport } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  const started = startTraceExport(settings, `${settings.serviceName}-${role}`, exportWarning(log));
  active = started;
  return {
    async stop() {
      if (active !== started) return;
      active = null;
      await started.shutdown();
    },
  };
}

/**
 * A collector that is down or refuses spans never disturbs the service: its batches are dropped,
 * and one JSON warning a minute says so (the reason only: no stack, no headers).
 */
export function exportWarning(log: Logger, everyMs = WARN_EVERY_MS): (err: unknown) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (err) => {
    const now = Date.now();
    if (now - last < everyMs) {
      suppressed++;
      return;
    }
    last = now;
    log.warn(
      { reason: reasonOf(err), suppressed },
      'trace export failed: spans dropped (one warning a minute at most)',
    );
    suppressed = 0;
  };
}

function reasonOf(err: unknown): string {
  const { message, code } =
    typeof err === 'object' && err !== null ? (err as { message?: unknown; code?: unknown }) : { message: err };
  const text = String(message ?? err);
  return (code !== undefined ? `${text} (${String(code)})` : text).slice(0, 200);
}
