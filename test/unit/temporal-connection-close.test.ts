import assert from 'node:assert/strict';
import net from 'node:net';
import { ClosableConnection } from '../../temporal/closable-connection';

/** A local port with nothing listening: calls to it fail UNAVAILABLE, which the SDK retries. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Temporal connection: closing while a call is being retried', () => {
  it('waits for the retry already scheduled, retries no more, and nothing throws after the close', async () => {
    const uncaught: Error[] = [];
    const record = (err: Error) => uncaught.push(err);
    // Mocha's own handler would fail the test too; this one says why.
    process.prependListener('uncaughtException', record);
    try {
      const connection = ClosableConnection.open({ address: `127.0.0.1:${await closedPort()}` });
      const call = connection.workflowService.getSystemInfo({}).then(
        () => null,
        (err: Error) => err,
      );
      // The first attempt has failed and its retry is on a timer (the SDK's first back-off is ~170 ms).
      await new Promise((resolve) => setTimeout(resolve, 50));
      await connection.close();
      const failure = await call;
      assert.ok(failure instanceof Error, 'the call ends with its error instead of retrying on');
      assert.match(failure.message, /UNAVAILABLE|No connection established/i);
      // Longer than the SDK's longest back-off: a stray retry timer would have fired by now.
      await new Promise((resolve) => setTimeout(resolve, 6500));
      assert.deepEqual(
        uncaught.map((err) => err.message),
        [],
      );
    } finally {
      process.removeListener('uncaughtException', record);
    }
  });
});
