// One place that builds a Temporal Connection + Client, so the API, the worker and the admin CLI
// all connect the same way (timeouts, namespace).
import { Client, Connection } from '@temporalio/client';

export interface TemporalClientBundle {
  connection: Connection;
  client: Client;
}

/**
 * Connects to the Temporal frontend at `address` (host:port) and returns a Client bound to
 * `namespace`. The caller owns the connection and must `connection.close()` it on shutdown.
 */
export async function connectClient(address: string, namespace: string): Promise<TemporalClientBundle> {
  // connectTimeout bounds the initial dial; a dead address fails fast instead of hanging.
  // lazy + ensureConnected (what connect() does) so that a failed attempt closes its gRPC channel
  // instead of leaking it (callers retry this while Temporal is starting).
  const connection = Connection.lazy({ address, connectTimeout: '10 seconds' });
  try {
    await connection.ensureConnected();
  } catch (err) {
    await connection.close().catch(() => {});
    throw err;
  }
  const client = new Client({ connection, namespace });
  return { connection, client };
}
