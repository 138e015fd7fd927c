import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { DnsResolutionError, OutboundBlockedError, resolveAllowed, type LookupAllFn } from '../outbound/resolve';
import type { CidrList } from '../outbound/policy';
import { logger } from '../observability/logger';

/** What the proxy logs about a request it refused (the addresses stay in the server log). */
export interface BrowserRefusal {
  host: string;
  kind: string;
  detail: string;
}

export interface OutboundProxy {
  /** e.g. http://127.0.0.1:41234, for Chromium's --proxy-server. */
  url: string;
  close(): Promise<void>;
}

// A refused address is worth a warning (a page reaching for internal addresses); a name that does
// not resolve is common (and Chromium's own background requests) and only logged at debug level.
const defaultRefusalLog = (entry: BrowserRefusal) =>
  entry.kind === 'dns'
    ? logger.debug(entry, 'browser request refused: the name does not resolve')
    : logger.warn(entry, 'browser request refused by the outbound policy');

/**
 * The browser's only way out: a forward proxy in the worker process that applies the crawler's
 * outbound policy (src/outbound) to every request a rendered page makes. The host is resolved once,
 * checked, and the connection made to exactly that address, so a second DNS answer (rebinding)
 * can never be used. Plain http:// requests are forwarded; https:// and ws(s):// come as CONNECT
 * and are tunnelled. A refused request fails in the page (403) and is logged.
 */
export async function startOutboundProxy(opts: {
  allow: CidrList;
  lookup?: LookupAllFn;
  onRefused?: (entry: BrowserRefusal) => void;
}): Promise<OutboundProxy> {
  const sockets = new Set<net.Socket>();
  const check = async (host: string): Promise<string | null> => {
    try {
      return (await resolveAllowed(host, opts.allow, { lookup: opts.lookup })).address;
    } catch (err) {
      if (!(err instanceof OutboundBlockedError || err instanceof DnsResolutionError)) throw err;
      const detail = err instanceof OutboundBlockedError ? err.detail : err.message;
      (opts.onRefused ?? defaultRefusalLog)({ host: err.host, kind: err.kind, detail });
      return null;
    }
  };
  const server = http.createServer((req, res) => void forward(req, res, check));
  server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    void tunnel(req, socket as net.Socket, head, check);
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

type Check = (host: string) => Promise<string | null>;

/** A plain http:// request in absolute form: re-sent to the checked address with its own Host header. */
async function forward(req: http.IncomingMessage, res: http.ServerResponse, check: Check): Promise<void> {
  let target: URL;
  try {
    target = new URL(req.url ?? '');
    if (target.protocol !== 'http:') throw new Error('not http');
  } catch {
    res.writeHead(400).end();
    return;
  }
  const address = await check(target.hostname).catch(() => null);
  if (!address) {
    res.writeHead(403, { 'content-type': 'text/plain' }).end('refused by the outbound policy');
    return;
  }
  const headers = { ...req.headers };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  const upstream = http.request({
    host: address,
    port: target.port || 80,
    method: req.method,
    path: `${target.pathname}${target.search}`,
    headers,
    setHost: false,
  });
  upstream.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  req.pipe(upstream);
}

/** CONNECT host:port: the tunnel goes to the checked address only. */
async function tunnel(req: http.IncomingMessage, socket: net.Socket, head: Buffer, check: Check): Promise<void> {
  socket.on('error', () => socket.destroy());
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
  if (!match) return void socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  const host = match[1].replace(/^\[|\]$/g, '');
  const address = await check(host).catch(() => null);
  if (!address) return void socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  const upstream = net.connect(Number(match[2]), address);
  let established = false;
  upstream.once('connect', () => {
    established = true;
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on('error', () => {
    // Before the tunnel: an answer Chromium understands; inside it, only the connection can end.
    if (!established) socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    else socket.destroy();
  });
  socket.once('close', () => upstream.destroy());
}
