import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Clock } from '../clock';
import { newRequestId } from '../ids';
import { ApiError } from '../errors';
import { errorBody, rateLimitHeaders } from './middleware/envelope';

// What Node's HTTP parser (llhttp) refused, in the client's terms.
const PARSER_MESSAGES: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'the request headers are larger than 16 KiB',
  HPE_INVALID_HEADER_TOKEN: 'a request header has an invalid name or contains control characters',
  HPE_INVALID_METHOD: 'the HTTP method is not known',
  HPE_INVALID_URL: 'the request target is not a valid URL path',
  HPE_INVALID_VERSION: 'the HTTP version is not valid',
  HPE_INVALID_CONTENT_LENGTH: 'the Content-Length header is not a valid number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length must not be sent with Transfer-Encoding, nor twice',
  HPE_INVALID_TRANSFER_ENCODING: 'the Transfer-Encoding header is not valid',
  HPE_INVALID_CHUNK_SIZE: 'a chunk size of the chunked body is not valid',
  ERR_HTTP_REQUEST_TIMEOUT: 'the request was not received in time',
};

interface RawAnswerOptions {
  docsUrl: () => string;
  clock: Clock;
}

/**
 * The server's `clientError` handler: a request Node's HTTP parser refuses never reaches Koa, so
 * it is answered here with the same envelope, X-Request-Id and (free tier) rate-limit headers as
 * every other error, instead of Node's bare "400 Bad Request".
 */
export function answerClientError(opts: RawAnswerOptions) {
  return (err: Error & { code?: string }, socket: Duplex): void => {
    // As Node's default: only while no response of this connection has begun.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const code = err.code ?? '';
    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const message = `the request is not valid HTTP: ${PARSER_MESSAGES[code] ?? 'the request line or headers are malformed'}`;
    writeError(socket, new ApiError('invalid_request', message, {}, status), opts);
  };
}

/** The server's `connect` handler: without one Node drops CONNECT requests without a word. */
export function refuseConnect(opts: RawAnswerOptions) {
  return (_request: unknown, socket: Duplex): void => {
    writeError(
      socket,
      new ApiError('method_not_allowed', 'CONNECT is not allowed: this is not a proxy', {
        Allow: 'GET, HEAD, POST, PUT, DELETE',
      }),
      opts,
    );
  };
}

function writeError(socket: Duplex, error: ApiError, opts: RawAnswerOptions): void {
  const requestId = newRequestId();
  const body = JSON.stringify(errorBody(error, requestId, opts.docsUrl()));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    Connection: 'close',
    'X-Request-Id': requestId,
    ...rateLimitHeaders(undefined, opts.clock),
    ...error.headers,
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${head}\r\n${body}`);
}
