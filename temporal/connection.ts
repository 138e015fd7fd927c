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
  const connection = await Connection.connect({ address, connectTimeout: '10 seconds' });
  const client = new Client({ connection, namespace });
  return { connection, client };
}
