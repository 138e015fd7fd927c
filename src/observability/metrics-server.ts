import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsContentType, renderMetrics } from './metrics';

export interface MetricsServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * A worker's GET /metrics on `host`:`port` (HOST, loopback by default): this process's metrics, followed by `more()` (the
 * Temporal SDK's own, see temporal-metrics.ts). Anything else is a 404.
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

/** Two text expositions as one: each block ends with a newline. */
function joinExpositions(first: string, second: string): string {
  const withNewline = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  return withNewline(first) + withNewline(second);
}
