import type { BackoffPolicy } from '../supervision/restart-backoff';
import { supervise, type Supervised } from '../supervision/supervisor';
import { startDevServer, type DevServer, type DevServerOptions } from './temporal-dev-server';

export interface SupervisedDevServer extends Supervised {
  /** host:port of the gRPC frontend: the same across restarts, so clients reconnect to it. */
  address: string;
  uiUrl: string | null;
}

/**
 * `npm start`'s Temporal dev server, started again on the same port and database file whenever it
 * dies (capped exponential back-off, src/supervision/supervisor.ts), so work survives and clients reconnect.
 * The first start is not retried: a port in use or a broken CLI is reported to the caller at once.
 */
export async function superviseDevServer(
  opts: DevServerOptions & { supervisorLog: (message: string) => void; backoff?: BackoffPolicy; signal?: AbortSignal },
): Promise<SupervisedDevServer> {
  const { supervisorLog, backoff, signal, ...serverOptions } = opts;
  const incarnation = (server: DevServer) => ({
    pid: server.pid,
    ready: Promise.resolve(),
    exited: server.exited,
    stop: server.stop,
  });
  const first = await startDevServer(serverOptions);
  const supervised = supervise({
    name: 'Temporal dev server',
    initial: incarnation(first),
    start: async () => incarnation(await startDevServer(serverOptions)),
    log: supervisorLog,
    backoff,
    signal,
  });
  return { ...supervised, address: first.address, uiUrl: first.uiUrl };
}
