import type { Middleware } from 'koa';
import { ApiError } from '../../errors';
import type { ApiState } from '../context';

// Node's own test for 100-continue (lib/_http_server.js): a request it matches reaches the app after
// "100 Continue"; one with any other Expect is handed over through 'checkExpectation' (processes/service.ts).
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * Two answers Node's HTTP server would otherwise write itself, bare (no envelope, no request id, no
 * rate-limit headers): 400 to an HTTP/1.1 request without Host (RFC 9112 §3.2; the server runs with
 * requireHostHeader: false so that it comes here), and 417 to an Expect other than 100-continue
 * (RFC 9110 §10.1.1). HTTP/1.0 requests need no Host, and their Expect is ignored, as the RFC says.
 * Both close the connection, as Node's do: after a refused expectation, whether the bytes that follow
 * are a body or the next request is anyone's guess.
 */
export const httpPreconditions: Middleware<ApiState> = async (ctx, next) => {
  const { httpVersionMajor, httpVersionMinor, headers } = ctx.req;
  if (httpVersionMajor === 1 && httpVersionMinor === 1) {
    if (headers.host === undefined)
      throw new ApiError('invalid_request', 'the Host header is required (HTTP/1.1)', { Connection: 'close' });
    if (headers.expect !== undefined && !CONTINUE.test(headers.expect))
      throw new ApiError(
        'invalid_request',
        `the expectation "${printable(headers.expect)}" cannot be met: the only Expect this server takes is 100-continue`,
        { Connection: 'close' },
        417,
      );
  }
  await next();
};

/** An echoed header value, kept short (Node's parser already refused control characters). */
function printable(value: string): string {
  return value.length > 64 ? `${value.slice(0, 64)}…` : value;
}
