import type { PeerCertificate, TLSSocket } from 'node:tls';

export interface TlsCertFacts {
  subject: string;
  issuer: string;
  subjectAltNames: string[];
  validFrom: string; // RFC 3339
  validTo: string; // RFC 3339
  bits?: number;
  keyType?: 'RSA' | 'EC' | 'other';
  serialNumber: string;
  fingerprint256: string;
}

/** What the TLS analyzers need to know about a connection: protocol, verdict and certificate. */
export interface TlsFacts {
  protocol: string; // 'TLSv1.3', 'TLSv1.2', …
  authorized: boolean;
  authorizationError?: string; // e.g. DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID
  cert?: TlsCertFacts;
}

export function tlsFactsOf(socket: TLSSocket): TlsFacts {
  const facts: TlsFacts = { protocol: socket.getProtocol() ?? 'unknown', authorized: socket.authorized };
  const authErr = socket.authorizationError as unknown;
  if (authErr) {
    facts.authorizationError =
      typeof authErr === 'string'
        ? authErr
        : String((authErr as { code?: string; message?: string }).code ?? (authErr as Error).message);
  }
  const cert = socket.getPeerCertificate(false) as PeerCertificate & { asn1Curve?: string; modulus?: string };
  if (cert && Object.keys(cert).length > 0) {
    facts.cert = {
      subject: formatDn(cert.subject as unknown as Record<string, string>),
      issuer: formatDn(cert.issuer as unknown as Record<string, string>),
      subjectAltNames: cert.subjectaltname ? cert.subjectaltname.split(', ') : [],
      validFrom: new Date(cert.valid_from).toISOString(),
      validTo: new Date(cert.valid_to).toISOString(),
      serialNumber: cert.serialNumber,
      fingerprint256: cert.fingerprint256,
      keyType: cert.modulus ? 'RSA' : cert.asn1Curve ? 'EC' : 'other',
    };
    if (typeof cert.bits === 'number') facts.cert.bits = cert.bits;
  }
  return facts;
}

function formatDn(dn: Record<string, string | string[]> | undefined): string {
  if (!dn) return '';
  return Object.entries(dn)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
    .join(', ');
}
