import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsContentType, renderMetrics } from './metrics';

export interface MetricsServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * A process's internal GET /metrics on `host`:`port` (HOST, loopback by default; a worker's, or the API's beside its
 * public port): this process's metrics, followed by `more()` (a worker's: the Temporal SDK's own, see
 * temporal-runtime.ts). No token here: the port is meant to be reachable by Prometheus only. Anything else is a 404.
 */
export async function serveMetrics(
  port: number,
  more: () => Promise<string> = async () => '',
  host = '127.0.0.1',
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    Promise.all([renderMetrics(), more()]).then(
      ([own, extra]) => res.writeHead(200, { 'Content-Type': metricsContentType }).end(joinExpositions(own, extra)),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * serveMetrics on `port` when there is one (METRICS_PORT is set, see metrics-config.ts); a port already taken
 * costs the metrics, not the process: logged, and null.
 */
export async function serveMetricsIfSet(
  port: number | null,
  host: string,
  log: (message: string, err: unknown) => void,
  more?: () => Promise<string>,
): Promise<MetricsServer | null> {
  if (port === null) return null;
  return serveMetrics(port, more, host).catch((err: unknown) => {
    log(`metrics not served: port ${port} is not available`, err);
    return null;
  });
}

/** Two text expositions as one: each block ends with a newline. */
function joinExpositions(first: string, second: string): string {
  const withNewline = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  return withNewline(first) + withNewline(second);
}
