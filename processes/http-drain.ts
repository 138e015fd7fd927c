import type http from 'node:http';

/**
 * Graceful stop of an HTTP server (SIGTERM, docs/operations.md): `drain()` stops accepting
 * connections at once, lets the requests in flight finish, and closes each keep-alive connection
 * as soon as its last answer is sent (Node would otherwise keep it open until keepAliveTimeout).
 * After `drainMs` the connections still busy are closed. Call before the server listens.
 */
export function drainable(server: http.Server, drainMs: number): { drain(): Promise<void> } {
  let draining = false;
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.once('finish', () => {
      if (draining) server.closeIdleConnections();
    });
  });
  return {
    async drain() {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), drainMs);
      await closed;
      clearTimeout(force);
    },
  };
}
