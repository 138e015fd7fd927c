import type { Severity } from '../schemas/audit';
import { findingFingerprint } from './fingerprint';

/** A finding as far as naming a change needs it (audits stored before fingerprints lack one). */
export interface FindingLike {
  fingerprint?: string;
  analyzer: string;
  severity: Severity;
}

/** A fingerprint of a comparison, with the analyzer and severity of the finding it stood for when known. */
export interface ChangedFinding {
  fingerprint: string;
  analyzer: string | null;
  severity: Severity | null;
}

/**
 * Names the fingerprints of `comparison.new` (from the audit itself) or `comparison.fixed` (from the
 * previous audit): the first finding carrying each. A fingerprint no source holds (the previous audit
 * was pruned) keeps a null analyzer; callers may still recognise a site-level one by its analyzer code.
 */
export function changedFindings(fingerprints: readonly string[], findings: readonly FindingLike[]): ChangedFinding[] {
  const byFingerprint = new Map<string, FindingLike>();
  for (const f of findings) {
    const fp = f.fingerprint ?? findingFingerprint(f.analyzer);
    if (!byFingerprint.has(fp)) byFingerprint.set(fp, f);
  }
  return fingerprints.map((fingerprint) => {
    const f = byFingerprint.get(fingerprint);
    return { fingerprint, analyzer: f?.analyzer ?? null, severity: f?.severity ?? null };
  });
}

/** The analyzer whose site-level fingerprint this is, among `codes`; null for a resource's fingerprint. */
export function siteLevelAnalyzer(fingerprint: string, codes: readonly string[]): string | null {
  return codes.find((code) => findingFingerprint(code) === fingerprint) ?? null;
}
