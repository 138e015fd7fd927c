import type { Location, Log, ReportingDescriptor, Result } from 'sarif';
import type { GateResult } from './gate';
import type { Audit, Finding, Severity } from './types';

/**
 * The audit as a SARIF 2.1.0 log that GitHub code scanning accepts (docs/decisions.md, "Customer
 * CLI"): a rule per analyzer of the audit, a result per finding. Code scanning takes only paths in
 * the repository as locations (an https: URI fails the upload) and needs one on every result, and it
 * tells alerts apart by rule, path and partial fingerprints: so each result's location is the
 * audited site as a path (`example.com`, a port as `_8080`), the same in every run, and the
 * finding's fingerprint (stable across audits of the domain) is its primaryLocationLineHash. The
 * pages it affects follow as related locations (host and path) and in full in the message.
 */

const SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

const LEVEL: Record<Severity, Result.level> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

/** Code scanning's scale for security rules: critical above 9.0, high 7.0–8.9, medium 4.0–6.9, low below 4. */
const SECURITY_SEVERITY: Record<Severity, string | undefined> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  info: undefined,
};

/** URLs written out in full in a result's message; the related locations list every one the JSON has. */
const MESSAGE_URLS = 10;

/** An address as a repository-relative path: host (port as _port, an IPv6 address's colons as _) and path. */
export function sitePath(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'site';
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '').replace(/:/g, '_') + (parsed.port ? `_${parsed.port}` : '');
  const path = parsed.pathname === '/' ? '' : parsed.pathname.replace(/\/+$/, '');
  return `${host}${path}`;
}

function rule(analyzer: Audit['analyzers'][number], first: Finding | undefined): ReportingDescriptor {
  const securitySeverity = analyzer.category === 'security' ? SECURITY_SEVERITY[analyzer.severity] : undefined;
  return {
    id: analyzer.code,
    shortDescription: { text: analyzer.title },
    fullDescription: { text: `${analyzer.title} (${analyzer.category.replace('_', ' ')}, ${analyzer.severity})` },
    ...(first ? { help: { text: first.recommendation } } : {}),
    defaultConfiguration: { level: LEVEL[analyzer.severity] },
    properties: {
      // Code scanning shows security-severity on rules tagged "security", which is our category's name.
      tags: [analyzer.category],
      ...(securitySeverity ? { 'security-severity': securitySeverity } : {}),
    },
  };
}

function location(uri: string, id?: number, text?: string): Location {
  return {
    ...(id !== undefined ? { id } : {}),
    physicalLocation: { artifactLocation: { uri } },
    ...(text ? { message: { text } } : {}),
  };
}

function message(finding: Finding): string {
  const count = finding.count ?? finding.urls.length;
  const urls = finding.urls.slice(0, MESSAGE_URLS);
  const lines = [`${finding.title}: ${finding.message}`, `Recommendation: ${finding.recommendation}`];
  if (finding.evidence) lines.push(`Evidence: ${finding.evidence}`);
  if (urls.length > 0) lines.push(`Affected (${count}): ${urls.join(' ')}${count > urls.length ? ' …' : ''}`);
  return lines.join('\n');
}

function result(audit: Audit, finding: Finding, ruleIndex: number, fresh: ReadonlySet<string>): Result {
  return {
    ruleId: finding.analyzer,
    ...(ruleIndex >= 0 ? { ruleIndex } : {}),
    level: LEVEL[finding.severity],
    message: { text: message(finding) },
    locations: [location(sitePath(audit.domain))],
    ...(finding.urls.length > 0
      ? { relatedLocations: finding.urls.map((url, i) => location(sitePath(url), i, url)) }
      : {}),
    partialFingerprints: { primaryLocationLineHash: finding.fingerprint },
    fingerprints: { 'domainAudit/v1': finding.fingerprint },
    ...(audit.comparison ? { baselineState: fresh.has(finding.fingerprint) ? 'new' : 'unchanged' } : {}),
    properties: {
      finding_id: finding.id,
      category: finding.category,
      severity: finding.severity,
      count: finding.count ?? finding.urls.length,
      ...(finding.triage ? { triage: finding.triage.status } : {}),
    },
  };
}

/** `informationUri`: the API's reference (/docs) at the address the CLI talked to. */
export function renderSarif(audit: Audit, gate: GateResult, informationUri: string): string {
  const firstOf = new Map<string, Finding>();
  for (const f of audit.findings) if (!firstOf.has(f.analyzer)) firstOf.set(f.analyzer, f);
  const rules = audit.analyzers.map((a) => rule(a, firstOf.get(a.code)));
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const fresh = new Set(gate.newFindings.map((f) => f.fingerprint));
  const log: Log = {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'Domain Audit', informationUri, rules } },
        // One analysis per audited site: code scanning keeps each site's alerts apart by this id.
        automationDetails: { id: `domain-audit/${sitePath(audit.domain)}/` },
        invocations: [{ executionSuccessful: true, startTimeUtc: audit.started_at, endTimeUtc: audit.completed_at }],
        results: audit.findings.map((f) => result(audit, f, index.get(f.analyzer) ?? -1, fresh)),
        properties: {
          audit_id: audit.audit_id,
          domain: audit.domain,
          score: audit.score,
          grade: audit.grade,
          ...(audit.comparison ? { previous_audit_id: audit.comparison.previous_audit_id } : {}),
        },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
