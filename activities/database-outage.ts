import { Context } from '@temporalio/activity';

// SQLSTATE classes and codes that mean "the database cannot be used right now", not "this query is
// wrong": connection exceptions (08…), operator intervention (57P01 terminated backend, 57P02,
// 57P03 cannot connect now), too many connections (53300). A database refusing connections
// (ALLOW_CONNECTIONS false) answers the generic 55000, so it is recognised by its message.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES =
  /connection terminated|not currently accepting connections|not queryable|timeout acquiring a connection|server closed the connection|connection.*(refused|reset|ended)/i;

/** Whether an error says Postgres is unreachable (an outage to wait out) rather than a failing query. */
function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code))
  )
    return true;
  if (err.name === 'KnexTimeoutError') return true;
  return UNAVAILABLE_MESSAGES.test(err.message);
}

const FIRST_WAIT_MS = 200;
const LONGEST_WAIT_MS = 5000;

/**
 * Runs a database step of an activity until Postgres answers: while it is unreachable the activity
 * heartbeats and tries again (capped exponential back-off), so work already done — a crawl, a
 * webhook POST — is kept and stored once the database is back instead of being redone or counted
 * as a failure. Any other error is thrown at once. Stops when the activity is cancelled.
 */
export async function untilDatabaseAnswers<T>(step: () => Promise<T>): Promise<T> {
  const context = Context.current();
  for (let waitMs = FIRST_WAIT_MS; ; waitMs = Math.min(LONGEST_WAIT_MS, waitMs * 2)) {
    try {
      return await step();
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      context.heartbeat({ waiting: 'database', error: (err as Error).message });
      await context.sleep(waitMs);
    }
  }
}
