import net from 'node:net';
import { Runtime, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import type { Logger } from 'pino';

/**
 * The Temporal SDK's logger for a worker process: its messages (activity logs carry the workflow
 * id, run id, activity type and id the SDK attaches) go through the process's pino logger.
 */
export function temporalLogger(log: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta: LogMetadata = {}) => {
    // A task token is a credential for completing the task: it stays out of the log.
    const { taskToken: _taskToken, ...fields } = meta;
    log[level.toLowerCase() as Lowercase<LogLevel>](fields, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/**
 * Installs the worker process's Temporal runtime (once per process): SDK and core logs through
 * `log`; with `metrics`, the SDK's worker metrics on a Prometheus endpoint of its own on a free
 * loopback port, returned as a function that reads them (the worker's /metrics appends them).
 */
export async function installWorkerRuntime(
  log: Logger,
  opts: { metrics: boolean },
): Promise<{ sdkMetrics: () => Promise<string> }> {
  const port = opts.metrics ? await freeLoopbackPort() : null;
  Runtime.install({
    logger: temporalLogger(log),
    shutdownSignals: [],
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(port ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true } } } : {}),
    },
  });
  if (!port) return { sdkMetrics: async () => '' };
  return {
    // The SDK's endpoint may not answer (yet): the worker's own metrics are still served.
    sdkMetrics: () =>
      fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) }).then(
        (res) => (res.ok ? res.text() : ''),
        () => '',
      ),
  };
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
