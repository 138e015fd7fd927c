import { truncate } from './parse';
import type { CrawlSnapshot, TlsFacts } from './snapshot';
import {
  EVIDENCE_MAX,
  errored,
  notApplicable,
  siteAnalyzer,
  siteOutcome,
  type Analyzer,
  type AnalyzerOutcome,
} from './types';

/**
 * Transport security from the providers' facts: the http:// redirect probe and the TLS probe.
 * Absent facts (nobody probed) → not_applicable; a provider that could not answer → error.
 */

const DAY_MS = 86_400_000;

/** The reference "now" of date checks: when the snapshot was observed, else the analysis time. */
export function snapshotNow(snapshot: CrawlSnapshot): number {
  const t = snapshot.observedAt === undefined ? NaN : Date.parse(snapshot.observedAt);
  return Number.isFinite(t) ? t : Date.now();
}

function hostOf(snapshot: CrawlSnapshot): string {
  try {
    return new URL(snapshot.origin).host;
  } catch {
    return snapshot.origin;
  }
}

function httpsOrigin(snapshot: CrawlSnapshot): string {
  return snapshot.origin.replace(/^http:/, 'https:');
}

// ── SEC_HTTP_NOT_REDIRECTED ──────────────────────────────────────────────────────────────────────

export const httpNotRedirected = siteAnalyzer('SEC_HTTP_NOT_REDIRECTED', (snapshot) => {
  const probe = snapshot.httpsRedirect;
  if (!probe) return notApplicable();
  if (!probe.ok) return errored();
  const f = probe.facts;
  if (f.sameHostHttpsFirst) return siteOutcome('pass');
  const hops = f.chain.filter((h) => h.status >= 300 && h.status < 400);
  const first = hops[0];
  let message: string;
  let evidence: string;
  if (!first) {
    message = `${f.httpUrl} is served over plain HTTP without redirecting to HTTPS.`;
    evidence = `${f.httpUrl} → ${f.finalUrl ?? '(no final response)'}: no redirect`;
  } else {
    const chain = f.chain.map((h) => `${h.url} → ${h.status}${h.location ? ` ${h.location}` : ''}`).join('; ');
    evidence = f.finalUrl ? `${chain}; final ${f.finalUrl}` : chain;
    if (f.finalUrl?.startsWith('https://')) {
      message = `${f.httpUrl} reaches HTTPS only after first redirecting elsewhere, so the browser never sees this host's HSTS policy over HTTPS first.`;
    } else {
      message = `${f.httpUrl} redirects but never to HTTPS on the same host.`;
    }
  }
  return siteOutcome('fail', [{ message, evidence: truncate(evidence, EVIDENCE_MAX), urls: [f.httpUrl] }]);
});

// ── TLS probe helpers ────────────────────────────────────────────────────────────────────────────

type Certificate = NonNullable<TlsFacts['certificate']>;

/** The certificate facts, or the outcome to return when there is nothing to judge. */
function certificateOf(snapshot: CrawlSnapshot): Certificate | AnalyzerOutcome {
  const tls = snapshot.tls;
  if (!tls) return notApplicable();
  if (!tls.ok) return errored();
  // No handshake at all: SEC_HTTPS_UNAVAILABLE reports it.
  if (!tls.facts.httpsAvailable || !tls.facts.certificate) return notApplicable();
  return tls.facts.certificate;
}

function isOutcome(v: Certificate | AnalyzerOutcome): v is AnalyzerOutcome {
  return 'status' in v;
}

function certSummary(c: Certificate): string {
  return `issuer ${c.issuer}; valid ${c.validFrom} to ${c.validTo}`;
}

// ── SEC_TLS_CERT_INVALID ─────────────────────────────────────────────────────────────────────────

export const tlsCertInvalid = siteAnalyzer('SEC_TLS_CERT_INVALID', (snapshot) => {
  const cert = certificateOf(snapshot);
  if (isOutcome(cert)) return cert;
  const now = snapshotNow(snapshot);
  const problems: string[] = [];
  const validTo = Date.parse(cert.validTo);
  const validFrom = Date.parse(cert.validFrom);
  if (Number.isFinite(validTo) && validTo < now) problems.push(`it expired on ${cert.validTo}`);
  if (Number.isFinite(validFrom) && validFrom > now) problems.push(`it is not valid before ${cert.validFrom}`);
  if (!cert.trusted) problems.push(`its chain is not trusted${cert.error ? ` (${cert.error})` : ''}`);
  if (!cert.hostnameMatches) problems.push(`it does not cover the host name ${hostOf(snapshot).replace(/:\d+$/, '')}`);
  if (problems.length === 0) return siteOutcome('pass');
  return siteOutcome('fail', [
    {
      message: `The TLS certificate is not valid: ${problems.join('; ')}.`,
      evidence: truncate(`${certSummary(cert)}${cert.error ? `; error ${cert.error}` : ''}`, EVIDENCE_MAX),
      urls: [httpsOrigin(snapshot)],
    },
  ]);
});

// ── SEC_TLS_CERT_EXPIRING ────────────────────────────────────────────────────────────────────────

export const CERT_EXPIRY_WARN_DAYS = 30;
export const CERT_EXPIRY_FAIL_DAYS = 7;

export const tlsCertExpiring = siteAnalyzer('SEC_TLS_CERT_EXPIRING', (snapshot) => {
  const cert = certificateOf(snapshot);
  if (isOutcome(cert)) return cert;
  const validTo = Date.parse(cert.validTo);
  if (!Number.isFinite(validTo)) return errored();
  const msLeft = validTo - snapshotNow(snapshot);
  // Already expired: SEC_TLS_CERT_INVALID reports it (an expired certificate is invalid, not expiring).
  if (msLeft <= 0) return notApplicable();
  const days = msLeft / DAY_MS;
  if (days > CERT_EXPIRY_WARN_DAYS) return siteOutcome('pass');
  const whole = Math.floor(days);
  const left = whole === 0 ? 'less than a day' : `${whole} day${whole === 1 ? '' : 's'}`;
  const urgent = days <= CERT_EXPIRY_FAIL_DAYS;
  return siteOutcome(urgent ? 'fail' : 'warn', [
    {
      message: `The TLS certificate expires in ${left} (${cert.validTo})${urgent ? ', within a week' : ''}.`,
      evidence: truncate(`${left} remaining; ${certSummary(cert)}`, EVIDENCE_MAX),
      urls: [httpsOrigin(snapshot)],
      // Medium, high within 7 days (docs/analyzers.md, Catalog).
      ...(urgent ? { severity: 'high' as const } : {}),
    },
  ]);
});

// ── SEC_TLS_LEGACY_PROTOCOL ──────────────────────────────────────────────────────────────────────

const LEGACY = new Set(['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1']);

export const tlsLegacyProtocol = siteAnalyzer('SEC_TLS_LEGACY_PROTOCOL', (snapshot) => {
  const tls = snapshot.tls;
  if (!tls) return notApplicable();
  if (!tls.ok) return errored();
  const f = tls.facts;
  if (!f.httpsAvailable) return notApplicable();
  const accepted = new Set<string>();
  for (const p of f.protocols ?? []) if (LEGACY.has(p)) accepted.add(p);
  for (const p of f.legacyProtocols?.accepted ?? []) if (LEGACY.has(p)) accepted.add(p);
  if (accepted.size > 0) {
    const list = [...accepted].sort();
    const all = [...new Set([...(f.protocols ?? []), ...list])].sort();
    return siteOutcome('fail', [
      {
        message: `The server accepts deprecated ${list.join(' and ')} handshakes.`,
        evidence: truncate(
          `accepted protocols: ${all.join(', ')}${f.legacyProtocols ? `; legacy versions tried: ${f.legacyProtocols.tried.join(', ')}` : ''}`,
          EVIDENCE_MAX,
        ),
        urls: [httpsOrigin(snapshot)],
      },
    ]);
  }
  // A normal handshake only shows the best version; without the legacy probe nothing is measured.
  if (!f.legacyProtocols || f.legacyProtocols.tried.length === 0) return notApplicable();
  return siteOutcome('pass');
});

// ── SEC_TLS_WEAK_KEY ─────────────────────────────────────────────────────────────────────────────

export const MIN_RSA_BITS = 2048;
export const MIN_EC_BITS = 256;

export const tlsWeakKey = siteAnalyzer('SEC_TLS_WEAK_KEY', (snapshot) => {
  const cert = certificateOf(snapshot);
  if (isOutcome(cert)) return cert;
  const type = cert.keyType.toLowerCase();
  let minimum: number | null = null;
  if (type === 'rsa' || type === 'rsa-pss' || type === 'dsa') minimum = MIN_RSA_BITS;
  else if (type === 'ec' || type === 'ecdsa') minimum = MIN_EC_BITS;
  // Ed25519/Ed448 have fixed strong sizes; an unknown type is not judged.
  if (minimum === null || !(cert.keyBits > 0)) return siteOutcome('pass');
  if (cert.keyBits >= minimum) return siteOutcome('pass');
  return siteOutcome('fail', [
    {
      message: `The certificate's ${cert.keyType.toUpperCase()} key has ${cert.keyBits} bits, under the ${minimum}-bit minimum.`,
      evidence: truncate(`key ${cert.keyType} ${cert.keyBits} bits; issuer ${cert.issuer}`, EVIDENCE_MAX),
      urls: [httpsOrigin(snapshot)],
    },
  ]);
});

export const SECURITY_TRANSPORT_ANALYZERS: readonly Analyzer[] = [
  httpNotRedirected,
  tlsCertInvalid,
  tlsCertExpiring,
  tlsLegacyProtocol,
  tlsWeakKey,
];
