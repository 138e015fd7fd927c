import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import tls, { type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { TlsFacts } from '../analyzers/snapshot';

/**
 * The TLS provider: handshakes with the audited host (SEC_HTTPS_UNAVAILABLE, SEC_TLS_*).
 *
 * The connection always goes to `lookupAddress` (the address the outbound policy already checked), with
 * the host name as SNI, so this never resolves names itself. One normal handshake without certificate
 * enforcement records the certificate, whether its chain verifies and whether it covers the host; then
 * one handshake per legacy version (TLS 1.0, 1.1), allowing the weak ciphers those versions need, tells
 * whether the server still accepts them.
 *
 * Outcomes: refused or reset connections and failed handshakes mean "no HTTPS" (`httpsAvailable: false`);
 * a connect timeout of the main handshake throws (the provider could not answer, the audit retries).
 */

export interface TlsProbeOptions {
  connectTimeoutMs: number;
  /** Address to connect to (IPv4 or IPv6 literal); the host name is only sent as SNI. */
  lookupAddress: string;
  /** Extra trust anchors (PEM), for tests; default: Node's bundled roots. */
  ca?: string | Buffer | readonly (string | Buffer)[];
}

export const LEGACY_VERSIONS = ['TLSv1', 'TLSv1.1'] as const;

/** Errors of the main handshake that mean "this host does not speak TLS here". */
const NO_TLS_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EPROTO', 'EHOSTUNREACH', 'ENETUNREACH']);

class ProbeTimeout extends Error {
  readonly code = 'ETIMEDOUT';
}

/** One handshake; `read` runs synchronously on secureConnect (before the peer can close), then the socket is closed. */
function handshake<T>(options: ConnectionOptions, timeoutMs: number, read: (socket: TLSSocket) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(options);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new ProbeTimeout(
          `TLS handshake with ${String(options.host)}:${String(options.port)} timed out after ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      try {
        resolve(read(socket));
      } catch (err) {
        reject(err);
      } finally {
        socket.destroy();
      }
    });
    // `on`, not `once`: a late second error after settling must not become an unhandled 'error' event.
    socket.on('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

function baseOptions(host: string, port: number, opts: TlsProbeOptions): ConnectionOptions {
  return {
    host: opts.lookupAddress,
    port,
    // SNI must be a name, never an address literal (RFC 6066 §3).
    ...(isIP(host) === 0 ? { servername: host } : {}),
    rejectUnauthorized: false,
    // Security level 1 (OpenSSL's default before Node 24 raised it to 2): a 1024-bit key must not
    // stop the handshake or fail the chain, so SEC_TLS_WEAK_KEY can judge the key on its own.
    ciphers: 'DEFAULT:@SECLEVEL=1',
    ...(opts.ca !== undefined ? { ca: opts.ca as ConnectionOptions['ca'] } : {}),
  };
}

const CURVE_BITS: Record<string, number> = {
  prime256v1: 256,
  'P-256': 256,
  secp256k1: 256,
  secp384r1: 384,
  'P-384': 384,
  secp521r1: 521,
  'P-521': 521,
  secp224r1: 224,
  'P-224': 224,
  prime192v1: 192,
  'P-192': 192,
};

export function keyFacts(x509: X509Certificate, legacyBits: number | undefined): { keyType: string; keyBits: number } {
  const key = x509.publicKey;
  const type = key.asymmetricKeyType ?? 'unknown';
  const details = key.asymmetricKeyDetails ?? {};
  switch (type) {
    case 'rsa':
      return { keyType: 'RSA', keyBits: details.modulusLength ?? legacyBits ?? 0 };
    case 'rsa-pss':
      return { keyType: 'RSA-PSS', keyBits: details.modulusLength ?? legacyBits ?? 0 };
    case 'dsa':
      return { keyType: 'DSA', keyBits: details.modulusLength ?? legacyBits ?? 0 };
    case 'ec':
      return { keyType: 'EC', keyBits: CURVE_BITS[details.namedCurve ?? ''] ?? legacyBits ?? 0 };
    case 'ed25519':
      return { keyType: 'Ed25519', keyBits: 256 };
    case 'ed448':
      return { keyType: 'Ed448', keyBits: 456 };
    default:
      return { keyType: type, keyBits: legacyBits ?? 0 };
  }
}

function isoDate(text: string): string {
  const t = Date.parse(text);
  return Number.isFinite(t) ? new Date(t).toISOString() : text;
}

const HOSTNAME_ERROR = 'ERR_TLS_CERT_ALTNAME_INVALID';

function certificateFacts(socket: TLSSocket, host: string): TlsFacts['certificate'] {
  const x509 = socket.getPeerX509Certificate();
  if (!x509) return undefined;
  // getPeerCertificate() can come back empty on some builds; the X509 object's legacy form is the same shape.
  const fromSocket = socket.getPeerCertificate();
  const peer = fromSocket && Object.keys(fromSocket).length > 0 ? fromSocket : x509.toLegacyObject();
  // Node checks the host name only when the chain verified; check it on its own either way.
  const identity = tls.checkServerIdentity(host, peer);
  const chainError =
    socket.authorized || socket.authorizationError === undefined ? undefined : String(socket.authorizationError);
  const trusted = chainError === undefined || chainError === HOSTNAME_ERROR;
  const error = !trusted
    ? chainError
    : identity
      ? ((identity as NodeJS.ErrnoException).code ?? identity.message)
      : undefined;
  return {
    trusted,
    hostnameMatches: identity === undefined,
    validFrom: isoDate(x509.validFrom),
    validTo: isoDate(x509.validTo),
    issuer: x509.issuer.split('\n').join(', '),
    ...keyFacts(x509, peer.bits),
    ...(error !== undefined ? { error } : {}),
  };
}

/**
 * Whether the server completes a handshake limited to `version`. Any failure counts as "refused"; this
 * relies on the local OpenSSL still being able to offer the version at security level 0 (OpenSSL 3 does).
 */
async function acceptsVersion(
  host: string,
  port: number,
  opts: TlsProbeOptions,
  version: tls.SecureVersion,
): Promise<boolean> {
  try {
    const negotiated = await handshake(
      {
        ...baseOptions(host, port, opts),
        minVersion: version,
        maxVersion: version,
        // TLS 1.0/1.1 need SHA-1 and older suites that OpenSSL 3 refuses at its default security level.
        ciphers: 'DEFAULT:@SECLEVEL=0',
      },
      opts.connectTimeoutMs,
      (socket) => socket.getProtocol(),
    );
    return negotiated === version;
  } catch {
    return false;
  }
}

export async function collectTlsFacts(host: string, port: number, opts: TlsProbeOptions): Promise<TlsFacts> {
  let main: { protocol: string | null; certificate: TlsFacts['certificate'] };
  try {
    main = await handshake(baseOptions(host, port, opts), opts.connectTimeoutMs, (socket) => ({
      protocol: socket.getProtocol(),
      certificate: certificateFacts(socket, host),
    }));
  } catch (err) {
    if (err instanceof ProbeTimeout) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (NO_TLS_CODES.has(code) || code.startsWith('ERR_SSL_')) return { httpsAvailable: false };
    throw err;
  }
  const { protocol, certificate } = main;
  const accepted: string[] = [];
  for (const version of LEGACY_VERSIONS) {
    if (await acceptsVersion(host, port, opts, version)) accepted.push(version);
  }
  const protocols = [...new Set([...(protocol ? [protocol] : []), ...accepted])];
  return {
    httpsAvailable: true,
    protocols,
    legacyProtocols: { tried: [...LEGACY_VERSIONS], accepted },
    ...(certificate ? { certificate } : {}),
  };
}
