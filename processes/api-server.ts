import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../src/config';
import type { createApp } from '../src/api/app';
import { answerClientError, refuseConnect } from '../src/api/client-error';
import { metricsPortOf } from '../src/observability/metrics-config';
import { serveMetricsIfSet } from '../src/observability/metrics-server';
import { drainable } from './http-drain';

/**
 * The API listening on its public port, where every answer carries the error envelope, even those Node would write
 * itself: requests its parser refuses and CONNECT (src/api/client-error.ts); a missing Host and an Expect other than
 * 100-continue, which the app answers instead (src/api/middleware/http-preconditions.ts). With METRICS_PORT, its
 * /metrics also without a token on a port of its own (+ 3: the workers beside it have + 0 to + 2). stop() drains both.
 */
export async function serveApi(
  app: ReturnType<typeof createApp>,
  config: Config,
  rawAnswers: Parameters<typeof answerClientError>[0],
  log: (message: string, err: unknown) => void,
): Promise<{ port: number; metricsPort?: number; stop(): Promise<void> }> {
  const handle = app.callback();
  const server = http.createServer({ requireHostHeader: false }, handle);
  server.on('clientError', answerClientError(rawAnswers));
  server.on('connect', refuseConnect(rawAnswers));
  server.on('checkExpectation', handle);
  server.keepAliveTimeout = 65_000;
  const draining = drainable(server, config.apiDrainMs);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const metrics = await serveMetricsIfSet(metricsPortOf(config.metricsPort, 'api'), config.host, log);
  return {
    port: (server.address() as AddressInfo).port,
    metricsPort: metrics?.port,
    async stop() {
      await draining.drain();
      await metrics?.stop();
    },
  };
}
