import { setTimeout as sleep } from 'node:timers/promises';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';

/**
 * A Temporal client Connection that can be closed while calls are still failing over. The SDK retries a
 * failed call (e.g. UNAVAILABLE) on a timer; a retry whose timer fires after close() throws "Channel has
 * been shut down" from that timer, an uncaught exception that ends the process. This connection keeps the
 * SDK's retries and back-off, stops retrying once closing, and closes only after the retries already
 * scheduled have been made.
 */
export class ClosableConnection extends Connection {
  private retries?: RetriesUntilClose;

  /** Like `Connection.lazy`: dials on the first call (or `ensureConnected()`). */
  static open(options: Omit<ConnectionOptions, 'interceptors'>): ClosableConnection {
    const retries = new RetriesUntilClose();
    const connection = ClosableConnection.lazy({ ...options, interceptors: [retries.interceptor] });
    (connection as ClosableConnection).retries = retries;
    return connection as ClosableConnection;
  }

  override async close(): Promise<void> {
    await this.retries?.stop();
    await super.close();
  }
}

class RetriesUntilClose {
  private closing = false;
  private lastRetryAt = 0;
  private readonly sdk = defaultGrpcRetryOptions();

  readonly interceptor = makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !this.closing && this.sdk.retryableDecider(attempt, status),
    // Called right after the decider said yes, as the retry's timer is set.
    delayFunction: (attempt, status) => {
      const delayMs = this.sdk.delayFunction(attempt, status);
      this.lastRetryAt = Math.max(this.lastRetryAt, Date.now() + delayMs);
      return delayMs;
    },
  });

  /** No retry is scheduled from now on; resolves once every scheduled one has fired. */
  async stop(): Promise<void> {
    this.closing = true;
    const waitMs = this.lastRetryAt - Date.now();
    if (waitMs > 0) await sleep(waitMs + 10);
  }
}
