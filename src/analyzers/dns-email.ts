import { truncate } from './parse';
import type { CrawlSnapshot, DnsFacts } from './snapshot';
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
 * DNS and email checks from the DNS provider's facts (snapshot.dns): absent → not_applicable,
 * provider failed → error. Findings cite the audited origin (the site they concern).
 */

function hostname(snapshot: CrawlSnapshot): string {
  try {
    return new URL(snapshot.origin).hostname;
  } catch {
    return snapshot.origin;
  }
}

/** Runs `fn` on the DNS facts, or returns the outcome for missing/failed facts. */
function withDns(
  snapshot: CrawlSnapshot,
  fn: (facts: DnsFacts, host: string, domain: string) => AnalyzerOutcome,
): AnalyzerOutcome {
  const dns = snapshot.dns;
  if (!dns) return notApplicable();
  if (!dns.ok) return errored();
  const host = dns.facts.host ?? hostname(snapshot);
  return fn(dns.facts, host, dns.facts.domain ?? host);
}

function failWith(
  snapshot: CrawlSnapshot,
  status: 'warn' | 'fail',
  message: string,
  evidence: string,
): AnalyzerOutcome {
  return siteOutcome(status, [{ message, evidence: truncate(evidence, EVIDENCE_MAX), urls: [snapshot.origin] }]);
}

const list = (records: readonly string[]) => records.map((r) => `"${r}"`).join(', ');

// ── DNS_DNSSEC_MISSING ───────────────────────────────────────────────────────────────────────────

/** The DS answer in words: `no DS record (NXDOMAIN, validated, from 192.0.2.53)`. */
function dsEvidence(answer: DnsFacts['dnssecAnswer']): string {
  if (!answer) return 'no DS record';
  const validated = answer.ad ? ', validated' : '';
  return `no DS record (${answer.rcode}${validated}, from resolver ${answer.resolver})`;
}

export const dnssecMissing = siteAnalyzer('DNS_DNSSEC_MISSING', (snapshot) =>
  withDns(snapshot, (f, _host, domain) => {
    // null: a snapshot from before the DS query; a resolver that did not answer failed the provider (error).
    if (f.dnssec === null) return notApplicable();
    if (f.dnssec) return siteOutcome('pass');
    return failWith(
      snapshot,
      'fail',
      `${domain} is not signed with DNSSEC: its parent zone publishes no DS record for it.`,
      `${domain}: DNSSEC not validated, ${dsEvidence(f.dnssecAnswer)}`,
    );
  }),
);

// ── DNS_CAA_MISSING ──────────────────────────────────────────────────────────────────────────────

/** The tag of a CAA record written as `flags tag value` (or `tag value`). */
export function caaTag(record: string): string | null {
  const m = /^\s*(?:\d+\s+)?([A-Za-z0-9]+)\s/.exec(record);
  return m ? m[1]!.toLowerCase() : null;
}

export const caaMissing = siteAnalyzer('DNS_CAA_MISSING', (snapshot) =>
  withDns(snapshot, (f, host) => {
    if (f.caa.length === 0) {
      return failWith(
        snapshot,
        'fail',
        `No CAA record on ${host} or any parent domain: any certificate authority may issue certificates for it.`,
        `${host} CAA: (none up to ${f.domain ?? host})`,
      );
    }
    if (
      f.caa.some((r) => {
        const t = caaTag(r);
        return t === 'issue' || t === 'issuewild';
      })
    )
      return siteOutcome('pass');
    return failWith(
      snapshot,
      'warn',
      'The CAA records name no issuer (no issue or issuewild tag), so they do not restrict issuance.',
      `${f.caaName ?? host} CAA: ${f.caa.join('; ')}`,
    );
  }),
);

// ── DNS_IPV6_MISSING ─────────────────────────────────────────────────────────────────────────────

export const ipv6Missing = siteAnalyzer('DNS_IPV6_MISSING', (snapshot) =>
  withDns(snapshot, (f, host) => {
    if (f.aaaa.length > 0) return siteOutcome('pass');
    const a = f.a && f.a.length > 0 ? `; A: ${f.a.join(', ')}` : '';
    return failWith(
      snapshot,
      'fail',
      `${host} has no AAAA record, so it is not reachable over IPv6.`,
      `${host} AAAA: (none)${a}`,
    );
  }),
);

// ── EMAIL_SPF_MISSING / EMAIL_SPF_WEAK ───────────────────────────────────────────────────────────

/** TXT records that are SPF policies (RFC 7208 §4.5: "v=spf1" followed by a space or the end). */
export function spfRecords(txt: readonly string[]): string[] {
  return txt.filter((r) => /^v=spf1(\s|$)/i.test(r.trim()));
}

export const spfMissing = siteAnalyzer('EMAIL_SPF_MISSING', (snapshot) =>
  withDns(snapshot, (f, _host, domain) => {
    const spf = spfRecords(f.spf);
    if (spf.length === 1) return siteOutcome('pass');
    if (spf.length === 0)
      return failWith(snapshot, 'fail', `${domain} publishes no SPF record.`, `${domain} TXT v=spf1: (none)`);
    return failWith(
      snapshot,
      'fail',
      `${domain} publishes ${spf.length} SPF records; receivers treat that as a permanent error (RFC 7208 §4.5).`,
      `${domain} TXT: ${list(spf)}`,
    );
  }),
);

/** Terms that cost a DNS lookup (RFC 7208 §4.6.4), counted in the record itself (includes are not followed). */
const LOOKUP_TERM = /^[+?~-]?(include:|a$|a[:/]|mx$|mx[:/]|ptr$|ptr:|exists:|redirect=)/i;
export const SPF_MAX_LOOKUPS = 10;

export interface SpfAnalysis {
  allQualifier: '+' | '-' | '~' | '?' | null;
  redirect: boolean;
  lookups: number;
}

export function analyzeSpf(record: string): SpfAnalysis {
  let allQualifier: SpfAnalysis['allQualifier'] = null;
  let redirect = false;
  let lookups = 0;
  for (const term of record.trim().split(/\s+/).slice(1)) {
    if (LOOKUP_TERM.test(term)) lookups++;
    if (/^redirect=/i.test(term)) redirect = true;
    const m = /^([+?~-]?)all$/i.exec(term);
    if (m && allQualifier === null) allQualifier = (m[1] || '+') as SpfAnalysis['allQualifier'];
  }
  return { allQualifier, redirect, lookups };
}

export const spfWeak = siteAnalyzer('EMAIL_SPF_WEAK', (snapshot) =>
  withDns(snapshot, (f, _host, domain) => {
    const spf = spfRecords(f.spf);
    if (spf.length !== 1) return notApplicable(); // EMAIL_SPF_MISSING covers it
    const record = spf[0]!;
    const a = analyzeSpf(record);
    const problems: string[] = [];
    if (a.allQualifier === '+') problems.push('it ends with +all, which authorises every server');
    else if (a.allQualifier === '?') problems.push('it ends with ?all (neutral), which protects nothing');
    else if (a.allQualifier === null && !a.redirect)
      problems.push('it has no "all" mechanism, so unlisted servers get a neutral result');
    if (a.lookups > SPF_MAX_LOOKUPS)
      problems.push(`it needs ${a.lookups} DNS lookups, over the limit of ${SPF_MAX_LOOKUPS} (permanent error)`);
    if (problems.length === 0) return siteOutcome('pass');
    return failWith(
      snapshot,
      'fail',
      `The SPF record of ${domain} is too permissive: ${problems.join('; ')}.`,
      `${domain} TXT "${record}"`,
    );
  }),
);

// ── EMAIL_DMARC_MISSING / EMAIL_DMARC_WEAK ───────────────────────────────────────────────────────

export function dmarcRecords(txt: readonly string[]): string[] {
  return txt.filter((r) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(r.trim()));
}

export function dmarcTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const i = part.indexOf('=');
    if (i === -1) continue;
    const k = part.slice(0, i).trim().toLowerCase();
    if (k !== '' && !tags.has(k)) tags.set(k, part.slice(i + 1).trim());
  }
  return tags;
}

export const dmarcMissing = siteAnalyzer('EMAIL_DMARC_MISSING', (snapshot) =>
  withDns(snapshot, (f, _host, domain) => {
    const dmarc = dmarcRecords(f.dmarc);
    if (dmarc.length === 1) return siteOutcome('pass');
    if (dmarc.length === 0) {
      const other = f.dmarc.length > 0 ? `: ${list(f.dmarc)} (not v=DMARC1)` : ': (none)';
      return failWith(snapshot, 'fail', `_dmarc.${domain} has no DMARC record.`, `_dmarc.${domain} TXT${other}`);
    }
    return failWith(
      snapshot,
      'fail',
      `_dmarc.${domain} has ${dmarc.length} DMARC records; receivers ignore DMARC when there are several.`,
      `_dmarc.${domain} TXT: ${list(dmarc)}`,
    );
  }),
);

export const dmarcWeak = siteAnalyzer('EMAIL_DMARC_WEAK', (snapshot) =>
  withDns(snapshot, (f, _host, domain) => {
    const dmarc = dmarcRecords(f.dmarc);
    if (dmarc.length !== 1) return notApplicable(); // EMAIL_DMARC_MISSING covers it
    const record = dmarc[0]!;
    const tags = dmarcTags(record);
    const evidence = `_dmarc.${domain} TXT "${record}"`;
    const p = tags.get('p')?.toLowerCase();
    if (p === undefined || p === 'none' || (p !== 'quarantine' && p !== 'reject')) {
      const why =
        p === undefined
          ? 'has no p= tag (treated as p=none)'
          : p === 'none'
            ? 'has p=none, which only monitors'
            : `has an invalid policy p=${tags.get('p')}`;
      return failWith(
        snapshot,
        'fail',
        `The DMARC record of ${domain} ${why}: spoofed mail is still delivered.`,
        evidence,
      );
    }
    const warnings: string[] = [];
    const pct = tags.get('pct');
    if (pct !== undefined && /^\d+$/.test(pct) && Number(pct) < 100)
      warnings.push(`pct=${pct} applies the policy to only ${pct}% of failing mail`);
    if (tags.get('sp')?.toLowerCase() === 'none') warnings.push('sp=none leaves subdomains unprotected');
    if (warnings.length === 0) return siteOutcome('pass');
    return failWith(
      snapshot,
      'warn',
      `The DMARC policy of ${domain} enforces only partly: ${warnings.join('; ')}.`,
      evidence,
    );
  }),
);

// ── EMAIL_NO_MAIL_HYGIENE ────────────────────────────────────────────────────────────────────────

/** RFC 7505 null MX: a single MX of preference 0 with the root as exchange. */
export function isNullMx(mx: DnsFacts['mx']): boolean {
  return mx.length === 1 && (mx[0]!.exchange === '' || mx[0]!.exchange === '.');
}

export const noMailHygiene = siteAnalyzer('EMAIL_NO_MAIL_HYGIENE', (snapshot) =>
  withDns(snapshot, (f, _host, domain) => {
    if (isNullMx(f.mx)) return siteOutcome('pass');
    if (f.mx.length > 0) return notApplicable(); // a mail domain
    const spf = spfRecords(f.spf);
    if (spf.length === 1 && /^v=spf1\s+-all\s*$/i.test(spf[0]!.trim())) return siteOutcome('pass');
    const spfText = spf.length === 0 ? '(none)' : list(spf);
    return failWith(
      snapshot,
      'fail',
      `${domain} has no MX record but does not declare that it sends no mail (no null MX, no "v=spf1 -all").`,
      `${domain} MX: (none); SPF: ${spfText}`,
    );
  }),
);

export const DNS_EMAIL_ANALYZERS: readonly Analyzer[] = [
  dnssecMissing,
  caaMissing,
  ipv6Missing,
  spfMissing,
  spfWeak,
  dmarcMissing,
  dmarcWeak,
  noMailHygiene,
];
