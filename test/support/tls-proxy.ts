import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';

/**
 * A gRPC-aware forwarding proxy in front of the (plain gRPC) Temporal dev server, as a secured
 * Temporal cluster would look to the service: with `tls`, it terminates TLS itself (ALPN h2) and,
 * with `requireClientCert`, refuses a client without a certificate of `ca` (mTLS). Since it
 * terminates HTTP/2, it sees each call's headers: `calls` records the method, the authorization
 * header (API keys) and the client certificate's CN, so tests can check what reached the server.
 */
export interface GrpcProxy {
  /** host:port to give the service as TEMPORAL_ADDRESS */
  address: string;
  calls: Array<{ method: string; authorization: string | undefined; clientCn: string | undefined }>;
  /** What went wrong passing calls on (shown when a test fails). */
  errors: string[];
  close(): Promise<void>;
}

export async function startGrpcProxy(
  upstream: string,
  opts: { tls?: { key: Buffer; cert: Buffer; ca: Buffer; requireClientCert: boolean } } = {},
): Promise<GrpcProxy> {
  // One HTTP/2 session to the dev server carries every call; a new one if it was lost.
  let upstreamSession: http2.ClientHttp2Session | null = null;
  const session = () => {
    if (!upstreamSession || upstreamSession.closed || upstreamSession.destroyed) {
      upstreamSession = http2.connect(`http://${upstream}`);
      upstreamSession.on('error', () => undefined);
    }
    return upstreamSession;
  };
  const calls: GrpcProxy['calls'] = [];
  const errors: string[] = [];
  const server = opts.tls
    ? http2.createSecureServer({
        key: opts.tls.key,
        cert: opts.tls.cert,
        ca: opts.tls.ca,
        requestCert: opts.tls.requireClientCert,
        rejectUnauthorized: opts.tls.requireClientCert,
      })
    : http2.createServer();
  server.on('stream', (stream, headers) => {
    const socket = stream.session?.socket as TLSSocket | undefined;
    const peer = opts.tls && socket?.getPeerCertificate ? socket.getPeerCertificate() : undefined;
    calls.push({
      method: String(headers[':path']).split('/').pop() ?? '',
      authorization: headers.authorization as string | undefined,
      clientCn: peer?.subject ? String(peer.subject.CN) : undefined,
    });
    try {
      forwardCall(session(), stream, headers);
    } catch (err) {
      errors.push(`forwarding ${String(headers[':path'])}: ${String(err)}`);
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    }
  });
  server.on('sessionError', (err) => errors.push(`session: ${String(err)}`));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    errors,
    close: async () => {
      upstreamSession?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Long polls of workers would keep the sessions (and close()) open for a minute.
        for (const session of sessions) session.destroy();
      });
    },
  };
}

/** One gRPC call passed on: request headers and body up, response headers, body and trailers (grpc-status) down. */
function forwardCall(
  upstream: http2.ClientHttp2Session,
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
): void {
  const outgoing: http2.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') && name !== ':method' && name !== ':path') continue;
    outgoing[name] = value;
  }
  const call = upstream.request(outgoing);
  stream.pipe(call);
  let trailers: http2.OutgoingHttpHeaders = {};
  call.on('trailers', (received) => (trailers = withoutPseudo(received)));
  call.on('response', (response) => {
    if (stream.destroyed) return;
    const status = response[':status'];
    // A trailers-only answer (an error) carries grpc-status in its headers and ends the stream there.
    const trailersOnly = response['grpc-status'] !== undefined;
    const answer = { ...withoutPseudo(response), ':status': status };
    if (trailersOnly) return void stream.respond(answer, { endStream: true });
    stream.respond(answer, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    call.pipe(stream);
  });
  call.on('error', () => stream.destroy());
  stream.on('error', () => call.destroy());
  stream.on('close', () => {
    if (!call.closed) call.close(http2.constants.NGHTTP2_CANCEL);
  });
}

function withoutPseudo(headers: http2.IncomingHttpHeaders): http2.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':')));
}

export interface TestPki {
  ca: Buffer;
  server: { cert: Buffer; key: Buffer };
  /** Paths, as TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY / TEMPORAL_TLS_CA take them. */
  client: { certPath: string; keyPath: string; caPath: string };
}

/** A private CA with a server certificate for localhost/127.0.0.1 and a client certificate (CN audit-service), by the openssl CLI. */
export function makeTestPki(dir: string): TestPki {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...newKey,
    '-days',
    '2',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-subj',
    '/CN=Test CA',
  );
  const issue = (name: string, cn: string, extensions: string) => {
    fs.writeFileSync(file(`${name}.ext`), extensions);
    openssl(
      'req',
      '-new',
      ...newKey,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.csr`),
      '-subj',
      `/CN=${cn}`,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      file(`${name}.ext`),
      '-out',
      file(`${name}.pem`),
    );
  };
  const endEntity = 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n';
  issue('server', 'localhost', `${endEntity}extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n`);
  issue('client', 'audit-service', `${endEntity}extendedKeyUsage=clientAuth\n`);
  return {
    ca: fs.readFileSync(file('ca.pem')),
    server: { cert: fs.readFileSync(file('server.pem')), key: fs.readFileSync(file('server.key')) },
    client: { certPath: file('client.pem'), keyPath: file('client.key'), caPath: file('ca.pem') },
  };
}
