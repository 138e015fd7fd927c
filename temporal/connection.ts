// One place that builds a Temporal Connection + Client, so the API, the worker and the admin CLI
// all connect the same way (timeouts, namespace, reconnection).
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type Connection } from '@temporalio/client';
import { ClosableConnection } from './closable-connection';
import { RestartBackoff } from '../src/supervision/restart-backoff';
import type { TemporalSecurity } from '../src/config';
import { tracingClientInterceptors } from '../src/observability/temporal-tracing';

export interface TemporalClientBundle {
  connection: Connection;
  client: Client;
}

// gRPC re-dials a lost server with its own back-off, by default growing to 120 s: after a
// dev-server restart the client would stay unusable that long. Loopback or not, 5 s is enough.
const RECONNECT_CHANNEL_ARGS = { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 5000 };

const PLAIN: TemporalSecurity = { tls: false, apiKey: undefined };

/**
 * The TLS and API-key options of a Connection or NativeConnection (config TEMPORAL_TLS_*,
 * TEMPORAL_API_KEY). `tls: false` is passed explicitly: the SDK would otherwise turn TLS on for
 * an API key by itself, and TEMPORAL_TLS=false is meant to win.
 */
export function securityOptions(security: TemporalSecurity = PLAIN): {
  tls: TemporalSecurity['tls'];
  apiKey?: string;
} {
  return { tls: security.tls, ...(security.apiKey ? { apiKey: security.apiKey } : {}) };
}

/**
 * Connects to the Temporal frontend at `address` (host:port) and returns a Client bound to
 * `namespace`. The caller owns the connection and must `connection.close()` it on shutdown.
 * If the server goes away later, calls fail until it is back and then work again by themselves.
 */
export async function connectClient(
  address: string,
  namespace: string,
  security?: TemporalSecurity,
): Promise<TemporalClientBundle> {
  // connectTimeout bounds the initial dial; a dead address fails fast instead of hanging.
  // lazy + ensureConnected (what connect() does) so that a failed attempt closes its gRPC channel
  // instead of leaking it (callers retry this while Temporal is starting).
  const connection = ClosableConnection.open({
    address,
    connectTimeout: '10 seconds',
    channelArgs: RECONNECT_CHANNEL_ARGS,
    ...securityOptions(security),
  });
  try {
    await connection.ensureConnected();
  } catch (err) {
    await connection.close().catch(() => {});
    throw err;
  }
  // With tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), workflow starts carry the caller's trace to the workflow.
  const client = new Client({ connection, namespace, interceptors: tracingClientInterceptors() });
  return { connection, client };
}

/** One check that the frontend at `address` answers and serves `namespace` (not merely that the port is open). */
export async function probeNamespace(address: string, namespace: string, security?: TemporalSecurity): Promise<void> {
  const connection = ClosableConnection.open({ address, connectTimeout: '2 seconds', ...securityOptions(security) });
  try {
    await connection.ensureConnected();
    await connection.workflowService.describeNamespace({ namespace });
  } finally {
    await connection.close().catch(() => {});
  }
}

/**
 * Waits, however long it takes, until Temporal serves `namespace` (checking at 0.5 s growing to
 * 2 s): a worker started while Temporal is down waits for it instead of exiting. Returns false
 * if `signal` aborted the wait.
 */
export async function waitForNamespace(
  address: string,
  namespace: string,
  opts: { signal?: AbortSignal; onUnavailable?: (reason: string) => void; security?: TemporalSecurity } = {},
): Promise<boolean> {
  const backoff = new RestartBackoff({ initialMs: 500, maxMs: 2000, stableMs: Infinity });
  let reported = false;
  while (!opts.signal?.aborted) {
    try {
      await probeNamespace(address, namespace, opts.security);
      return true;
    } catch (err) {
      if (!reported) opts.onUnavailable?.(err instanceof Error ? err.message : String(err));
      reported = true;
    }
    await sleep(backoff.next(0), undefined, { signal: opts.signal }).catch(() => undefined);
  }
  return false;
}
