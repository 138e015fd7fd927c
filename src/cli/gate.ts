import { severityRank, type Audit, type Finding, type Severity } from './types';

/**
 * The CI gate (docs/decisions.md, "Customer CLI"): the score against --fail-under, and the findings
 * new since the domain's previous audit against --fail-on-new. "New" is the service's own comparison
 * (the audit JSON's `comparison.new`: fingerprints absent from the previous completed audit of the
 * same workspace, mode and domain, ignored and accepted ones left out; docs/decisions.md, "Comparison").
 */

export interface GateOptions {
  failUnder?: number;
  failOnNew?: Severity;
}

export interface GateResult {
  passed: boolean;
  /** Why it failed, one sentence each; empty when it passed. */
  reasons: string[];
  /** Whether the audit had a previous one to compare with. */
  compared: boolean;
  /** The audit's findings whose fingerprint is new, whatever their severity (for the reports). */
  newFindings: Finding[];
  /** The new findings at or above --fail-on-new (those that fail the gate). */
  failingNew: Finding[];
}

/** Findings of the audit whose fingerprint the comparison names as new, in the audit's order. */
export function newFindingsOf(audit: Audit): Finding[] {
  const fresh = new Set(audit.comparison?.new ?? []);
  return audit.findings.filter((f) => fresh.has(f.fingerprint));
}

export function evaluateGate(audit: Audit, options: GateOptions): GateResult {
  const reasons: string[] = [];
  if (options.failUnder !== undefined && audit.score < options.failUnder)
    reasons.push(`score ${audit.score} is under ${options.failUnder}`);
  const newFindings = newFindingsOf(audit);
  const threshold = options.failOnNew;
  const failingNew =
    threshold === undefined ? [] : newFindings.filter((f) => severityRank(f.severity) <= severityRank(threshold));
  if (failingNew.length > 0) {
    const fingerprints = new Set(failingNew.map((f) => f.fingerprint));
    reasons.push(
      `${fingerprints.size} new finding${fingerprints.size === 1 ? '' : 's'} at or above ${threshold} since ` +
        `${audit.comparison!.previous_audit_id}: ${[...new Set(failingNew.map((f) => f.analyzer))].join(', ')}`,
    );
  }
  return { passed: reasons.length === 0, reasons, compared: audit.comparison !== undefined, newFindings, failingNew };
}
