import { displayHeaderName, headerEvidence } from './evidence';
import { parseHsts } from './hsts-policy';
import { attr, metaHttpEquiv, metaNamed, truncate, type ParsedPage } from './parse';
import { headerValue, headerValues, type CrawlSnapshot } from './snapshot';
import {
  EVIDENCE_MAX,
  PAGE_PASS,
  errored,
  notApplicable,
  pageAnalyzer,
  pageFail,
  pageIssues,
  pageWarn,
  siteAnalyzer,
  siteOutcome,
  type Analyzer,
  type Issue,
  type PageResult,
} from './types';

/** Security checks answered from the crawled pages' response headers (and meta equivalents). */

function isHttps(url: string): boolean {
  return url.startsWith('https://');
}

/** HTML pages served over HTTPS: the only responses where browsers honour HSTS. */
function httpsHtml(p: ParsedPage): boolean {
  return p.isHtml && isHttps(p.url);
}

// ── SEC_HTTPS_UNAVAILABLE ────────────────────────────────────────────────────────────────────────

export const httpsUnavailable = siteAnalyzer('SEC_HTTPS_UNAVAILABLE', (snapshot) => {
  // Any response received on an https:// URL proves a TLS handshake completed.
  const httpsSeen = snapshot.pages.some(
    (p) => isHttps(p.url) || isHttps(p.finalUrl) || p.redirectChain.some((h) => isHttps(h.url)),
  );
  const tls = snapshot.tls;
  const failure = (evidence: string) =>
    siteOutcome('fail', [
      {
        message: 'The site could not be reached over HTTPS; it is served only over unencrypted http://.',
        evidence: truncate(evidence, EVIDENCE_MAX),
        urls: [snapshot.origin],
      },
    ]);
  if (httpsSeen || (tls?.ok && tls.facts.httpsAvailable)) return siteOutcome('pass');
  if (tls?.ok) return failure(`${httpsOrigin(snapshot)}: no TLS handshake on port 443`);
  if (tls && !tls.ok) return errored();
  if (snapshot.origin.startsWith('http://')) {
    return failure(`${snapshot.origin} answered over http://; no https:// response was observed`);
  }
  return notApplicable();
});

function httpsOrigin(snapshot: CrawlSnapshot): string {
  return snapshot.origin.replace(/^http:/, 'https:');
}

// ── SEC_HSTS_MISSING / SEC_HSTS_WEAK ─────────────────────────────────────────────────────────────

export const HSTS_FAIL_BELOW = 15_768_000; // 6 months (182.5 days), the Observatory's threshold
export const HSTS_WARN_BELOW = 31_536_000; // 1 year

export const hstsMissing = pageAnalyzer('SEC_HSTS_MISSING', (p) => {
  if (!httpsHtml(p)) return null;
  if (headerValues(p.page.headers, 'strict-transport-security').length > 0) return PAGE_PASS;
  return pageFail(
    'HTTPS page served without a Strict-Transport-Security header.',
    headerEvidence(p.page.headers, 'strict-transport-security'),
  );
});

function describeSeconds(s: number): string {
  const days = s / 86_400;
  return days >= 1 ? `${Math.round(days * 10) / 10} days` : `${s} seconds`;
}

/** The kind of weakness is the subject: pages with different too-short max-ages are one problem. */
function weakness(r: PageResult, subject: string): PageResult {
  return { ...r, issues: r.issues.map((i) => ({ ...i, subject })) };
}

export const hstsWeak = pageAnalyzer('SEC_HSTS_WEAK', (p) => {
  if (!httpsHtml(p)) return null;
  const first = headerValues(p.page.headers, 'strict-transport-security')[0];
  if (first === undefined) return null; // SEC_HSTS_MISSING covers it
  const evidence = truncate(`Strict-Transport-Security: ${first}`, EVIDENCE_MAX);
  // Repeated headers may arrive joined with ", " (HSTS values never contain commas): keep the first.
  const policy = parseHsts(first.split(',')[0]!);
  if (!policy.valid)
    return weakness(
      pageFail(`Strict-Transport-Security header is invalid (${policy.reason}), so browsers ignore it.`, evidence),
      'invalid',
    );
  if (policy.maxAge < HSTS_FAIL_BELOW) {
    return weakness(
      pageFail(
        `HSTS max-age is ${policy.maxAge} (${describeSeconds(policy.maxAge)}), under the 6-month minimum.`,
        evidence,
      ),
      'max-age under 6 months',
    );
  }
  if (policy.maxAge < HSTS_WARN_BELOW) {
    return weakness(
      pageWarn(
        `HSTS max-age is ${policy.maxAge} (${describeSeconds(policy.maxAge)}), under the recommended one year.`,
        evidence,
      ),
      'max-age under 1 year',
    );
  }
  return PAGE_PASS;
});

// ── SEC_CSP_MISSING ──────────────────────────────────────────────────────────────────────────────

export const cspMissing = pageAnalyzer('SEC_CSP_MISSING', (p) => {
  if (!p.isHtml) return null;
  const h = p.page.headers;
  if (headerValues(h, 'content-security-policy').some((v) => v.trim() !== '')) return PAGE_PASS;
  if (metaHttpEquiv(p, 'content-security-policy').some((m) => (attr(m, 'content') ?? '').trim() !== ''))
    return PAGE_PASS;
  if (headerValues(h, 'content-security-policy-report-only').length > 0) {
    return pageFail(
      'Only a Content-Security-Policy-Report-Only policy is sent: it reports violations but blocks nothing.',
      headerEvidence(h, 'content-security-policy-report-only'),
      'report-only',
    );
  }
  return pageFail(
    'No Content-Security-Policy header or <meta http-equiv="Content-Security-Policy">.',
    headerEvidence(h, 'content-security-policy'),
    'absent',
  );
});

// ── SEC_CLICKJACKING ─────────────────────────────────────────────────────────────────────────────

/** The frame-ancestors source lists of every enforced CSP header (meta policies cannot set it). */
export function frameAncestors(headers: Parameters<typeof headerValues>[0]): string[][] {
  const out: string[][] = [];
  for (const header of headerValues(headers, 'content-security-policy')) {
    for (const policy of header.split(',')) {
      for (const directive of policy.split(';')) {
        const tokens = directive.trim().split(/\s+/);
        if (tokens[0]?.toLowerCase() === 'frame-ancestors') out.push(tokens.slice(1));
      }
    }
  }
  return out;
}

export const clickjacking = pageAnalyzer('SEC_CLICKJACKING', (p) => {
  if (!p.isHtml) return null;
  const h = p.page.headers;
  const ancestors = frameAncestors(h);
  if (ancestors.some((sources) => !(sources.length === 1 && sources[0] === '*'))) return PAGE_PASS;
  const xfo = headerValue(h, 'x-frame-options');
  if (xfo !== undefined) {
    const values = new Set(
      xfo
        .split(',')
        .map((v) => v.trim().toLowerCase())
        .filter((v) => v !== ''),
    );
    if (values.size === 1 && (values.has('deny') || values.has('sameorigin'))) return PAGE_PASS;
    const why = [...values].some((v) => v.startsWith('allow-from'))
      ? 'X-Frame-Options ALLOW-FROM is obsolete and ignored by current browsers'
      : `X-Frame-Options value "${xfo}" is not DENY or SAMEORIGIN, so browsers ignore it`;
    return pageFail(
      `${why}, and no CSP frame-ancestors directive restricts framing.`,
      headerEvidence(h, 'x-frame-options'),
      'x-frame-options ignored',
    );
  }
  const csp = ancestors.length > 0 ? '; CSP frame-ancestors allows any site (*)' : '; no CSP frame-ancestors directive';
  return pageFail(
    'Neither X-Frame-Options nor a CSP frame-ancestors directive stops other sites from framing this page.',
    `${headerEvidence(h, 'x-frame-options')}${csp}`,
    'unrestricted',
  );
});

// ── SEC_XCTO_MISSING ─────────────────────────────────────────────────────────────────────────────

export const xctoMissing = pageAnalyzer('SEC_XCTO_MISSING', (p) => {
  if (!p.isHtml) return null;
  const v = headerValue(p.page.headers, 'x-content-type-options');
  if (v?.split(',')[0]!.trim().toLowerCase() === 'nosniff') return PAGE_PASS;
  return pageFail(
    v === undefined
      ? 'No X-Content-Type-Options header.'
      : 'X-Content-Type-Options is not "nosniff", so browsers ignore it.',
    headerEvidence(p.page.headers, 'x-content-type-options'),
    v === undefined ? 'absent' : 'not nosniff',
  );
});

// ── SEC_REFERRER_POLICY_UNSAFE ───────────────────────────────────────────────────────────────────

const REFERRER_POLICIES = new Set([
  'no-referrer',
  'no-referrer-when-downgrade',
  'same-origin',
  'origin',
  'strict-origin',
  'origin-when-cross-origin',
  'strict-origin-when-cross-origin',
  'unsafe-url',
]);
/** Legacy <meta name="referrer"> keywords (Referrer Policy spec §4.1). */
const LEGACY_META: Record<string, string> = {
  never: 'no-referrer',
  default: 'strict-origin-when-cross-origin',
  always: 'unsafe-url',
  'origin-when-crossorigin': 'origin-when-cross-origin',
};
const UNSAFE_REFERRER = new Set(['unsafe-url', 'origin', 'no-referrer-when-downgrade']);

export const referrerPolicyUnsafe = pageAnalyzer('SEC_REFERRER_POLICY_UNSAFE', (p) => {
  if (!p.isHtml) return null;
  // The last recognised token wins; a <meta name="referrer"> overrides the header.
  let effective: string | null = null;
  let source = '';
  const header = headerValue(p.page.headers, 'referrer-policy');
  for (const t of (header ?? '').split(',')) {
    const token = t.trim().toLowerCase();
    if (REFERRER_POLICIES.has(token)) {
      effective = token;
      source = headerEvidence(p.page.headers, 'referrer-policy');
    }
  }
  for (const m of metaNamed(p, 'referrer')) {
    const raw = (attr(m, 'content') ?? '').trim().toLowerCase();
    const token = LEGACY_META[raw] ?? raw;
    if (REFERRER_POLICIES.has(token)) {
      effective = token;
      source = truncate(`<meta name="referrer" content="${attr(m, 'content') ?? ''}">`, EVIDENCE_MAX);
    }
  }
  // No policy at all: browsers default to strict-origin-when-cross-origin, which is safe.
  if (effective === null || !UNSAFE_REFERRER.has(effective)) return PAGE_PASS;
  return pageFail(
    `Referrer policy "${effective}" sends this site's addresses to other sites${effective === 'origin' ? ' (its origin, even over http://)' : ''}.`,
    source,
    effective,
  );
});

// ── SEC_VERSION_DISCLOSURE ───────────────────────────────────────────────────────────────────────

/** "nginx/1.18.0", "Apache/2", "Microsoft-IIS/10.0" — a product followed by a version number. */
const VERSIONED_PRODUCT = /[A-Za-z][\w.-]*\/v?\d+(?:\.\d+)*(?![\w])/;
const ALWAYS_DISCLOSING = ['x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version'] as const;

export const versionDisclosure = pageAnalyzer('SEC_VERSION_DISCLOSURE', (p) => {
  if (!p.isHtml) return null;
  const h = p.page.headers;
  const issues: Issue[] = [];
  const server = headerValue(h, 'server');
  if (server !== undefined && VERSIONED_PRODUCT.test(server)) {
    issues.push({
      outcome: 'fail',
      message: 'The Server header names the software version.',
      evidence: headerEvidence(h, 'server'),
      subject: 'server',
    });
  }
  for (const name of ALWAYS_DISCLOSING) {
    const v = headerValue(h, name);
    if (v !== undefined && v.trim() !== '') {
      issues.push({
        outcome: 'fail',
        message: `The ${displayHeaderName(name)} header discloses the technology stack.`,
        evidence: headerEvidence(h, name),
        subject: name,
      });
    }
  }
  return pageIssues(issues);
});

export const SECURITY_HEADER_ANALYZERS: readonly Analyzer[] = [
  httpsUnavailable,
  hstsMissing,
  hstsWeak,
  cspMissing,
  clickjacking,
  xctoMissing,
  referrerPolicyUnsafe,
  versionDisclosure,
];
