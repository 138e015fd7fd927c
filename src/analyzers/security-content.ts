import { headerEvidence } from './evidence';
import { truncate } from './parse';
import { headerValue, type CrawlSnapshot } from './snapshot';
import { cookieInsecure } from './security-cookies';
import { cspUnsafe } from './security-csp';
import { mixedContent, sriMissing } from './security-subresources';
import { snapshotNow } from './security-transport';
import { EVIDENCE_MAX, errored, notApplicable, siteAnalyzer, siteOutcome, type Analyzer } from './types';

/**
 * Security checks of the site's answers beyond headers: CORS and security.txt here; page content
 * (CSP, cookies, subresources) in security-csp.ts, security-cookies.ts and security-subresources.ts.
 */

// ── SEC_CORS_CREDENTIALED_ANY ────────────────────────────────────────────────────────────────────

export const corsCredentialedAny = siteAnalyzer('SEC_CORS_CREDENTIALED_ANY', (snapshot) => {
  const probe = snapshot.corsProbe;
  if (!probe) return notApplicable();
  if (!probe.ok) return errored();
  const { headers, originSent, url } = probe.facts;
  const allowOrigin = headerValue(headers, 'access-control-allow-origin')?.trim();
  const credentials = headerValue(headers, 'access-control-allow-credentials')?.trim().toLowerCase() === 'true';
  // "*" with credentials is refused by browsers, so only an echoed origin (or "null") is exploitable.
  const reflected = allowOrigin !== undefined && (allowOrigin === originSent || allowOrigin === 'null');
  if (!(reflected && credentials)) return siteOutcome('pass');
  return siteOutcome('fail', [
    {
      message: `A request with the foreign Origin ${originSent} was answered with Access-Control-Allow-Origin: ${allowOrigin} and Access-Control-Allow-Credentials: true.`,
      evidence: truncate(
        `Origin: ${originSent} → ${headerEvidence(headers, 'access-control-allow-origin')}; ${headerEvidence(headers, 'access-control-allow-credentials')}`,
        EVIDENCE_MAX,
      ),
      urls: [url],
    },
  ]);
});

// ── SEC_SECURITY_TXT_MISSING ─────────────────────────────────────────────────────────────────────

export interface SecurityTxtFields {
  contact: string[];
  expires: string[];
}

/** RFC 9116 fields (names case-insensitive); PGP-signed files keep their fields in the signed text. */
export function parseSecurityTxt(body: string): SecurityTxtFields {
  const fields: SecurityTxtFields = { contact: [], expires: [] };
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const name = m[1]!.toLowerCase();
    if (name === 'contact') fields.contact.push(m[2]!.trim());
    else if (name === 'expires') fields.expires.push(m[2]!.trim());
  }
  return fields;
}

export const securityTxtMissing = siteAnalyzer('SEC_SECURITY_TXT_MISSING', (snapshot: CrawlSnapshot) => {
  const fetch = snapshot.securityTxt;
  if (!fetch) return notApplicable();
  if (fetch.kind === 'unreachable') return errored();
  const urls = [fetch.url];
  const type = (headerValue(fetch.headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  // A catch-all page answering 200 with HTML is not a security.txt.
  if (fetch.status < 200 || fetch.status > 299 || type === 'text/html') {
    return siteOutcome('fail', [
      {
        message: 'No security.txt is published at /.well-known/security.txt.',
        evidence: truncate(`GET ${fetch.url} → ${fetch.status}${type ? ` (${type})` : ''}`, EVIDENCE_MAX),
        urls,
      },
    ]);
  }
  const fields = parseSecurityTxt(fetch.body);
  const firstLines = fetch.body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .slice(0, 4)
    .join(' | ');
  const evidence = truncate(`${fetch.url}: ${firstLines || '(empty)'}`, EVIDENCE_MAX);
  if (fields.contact.length === 0) {
    return siteOutcome('fail', [
      {
        message: 'security.txt has no Contact field, so researchers cannot tell how to report a vulnerability.',
        evidence,
        urls,
      },
    ]);
  }
  const problems: string[] = [];
  if (fields.expires.length === 0) problems.push('it has no Expires field');
  else if (fields.expires.length > 1) problems.push('it has several Expires fields');
  else {
    const t = Date.parse(fields.expires[0]!);
    if (!Number.isFinite(t)) problems.push(`its Expires value "${fields.expires[0]}" is not a date`);
    else if (t <= snapshotNow(snapshot)) problems.push(`it expired on ${fields.expires[0]}`);
  }
  if (!fetch.url.startsWith('https://')) problems.push('it is not served over HTTPS');
  if (problems.length === 0) return siteOutcome('pass');
  return siteOutcome('warn', [{ message: `security.txt is published but ${problems.join(', ')}.`, evidence, urls }]);
});

export const SECURITY_CONTENT_ANALYZERS: readonly Analyzer[] = [
  cspUnsafe,
  cookieInsecure,
  corsCredentialedAny,
  sriMissing,
  mixedContent,
  securityTxtMissing,
];
