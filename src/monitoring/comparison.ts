import { findingFingerprint } from './fingerprint';
import { CATEGORIES, type AuditJson, type Comparison, type Finding } from '../schemas/audit';

/**
 * Comparison with the previous audit of the same site (docs/decisions.md, Monitoring): pure, so the
 * activity that stores an audit and the tests share it. Cost is linear in the number of findings.
 */

export type TriageStatus = 'open' | 'ignored' | 'accepted';
export interface Triage {
  status: TriageStatus;
  note: string | null;
}
export type TriageMap = ReadonlyMap<string, Triage>;

/** What the comparison needs of the previous audit (a stored audit JSON has all of it). */
export interface PreviousAudit {
  audit_id: string;
  score: number;
  categories: AuditJson['categories'];
  findings: ReadonlyArray<Pick<Finding, 'analyzer'> & { fingerprint?: string }>;
}

/** Ignored and accepted findings are known to the site's owner: they never count as new. */
const SILENCED: ReadonlySet<TriageStatus> = new Set(['ignored', 'accepted']);

/** Audits stored before fingerprints existed: their findings get the site-level fingerprint of their analyzer. */
function fingerprintOf(f: { analyzer: string; fingerprint?: string }): string {
  return f.fingerprint ?? findingFingerprint(f.analyzer);
}

/** Distinct fingerprints in the order of first appearance (findings are ordered most severe first). */
function distinctFingerprints(findings: ReadonlyArray<{ analyzer: string; fingerprint?: string }>): string[] {
  const seen = new Set<string>();
  for (const f of findings) seen.add(fingerprintOf(f));
  return [...seen];
}

/** `current` is an audit JSON, or a comparison basis (the dashboard compares stored bases). */
export function compareAudits(current: PreviousAudit, previous: PreviousAudit, triage: TriageMap): Comparison {
  const now = distinctFingerprints(current.findings);
  const before = distinctFingerprints(previous.findings);
  const beforeSet = new Set(before);
  const nowSet = new Set(now);
  const categories: Comparison['categories'] = {};
  for (const c of CATEGORIES) {
    const a = current.categories[c];
    const b = previous.categories[c];
    if (a && b) categories[c] = a.score - b.score;
  }
  return {
    previous_audit_id: previous.audit_id,
    previous_score: previous.score,
    score_delta: current.score - previous.score,
    categories,
    new: now.filter((fp) => !beforeSet.has(fp) && !SILENCED.has(triage.get(fp)?.status ?? 'open')),
    fixed: before.filter((fp) => !nowSet.has(fp)),
    unchanged: now.filter((fp) => beforeSet.has(fp)).length,
  };
}

/** The audit with `triage` on every finding the site has triaged, and `comparison` when there is a previous audit. */
export function withMonitoring(current: AuditJson, previous: PreviousAudit | null, triage: TriageMap): AuditJson {
  const findings = current.findings.map((f) => {
    const t = triage.get(f.fingerprint);
    if (t) return { ...f, triage: { status: t.status, note: t.note } };
    if (!f.triage) return f;
    // Attached again (after the browser stage): a triage removed since then goes too.
    const { triage: _stale, ...rest } = f;
    return rest;
  });
  const out: AuditJson = { ...current, findings };
  delete out.comparison;
  if (previous) out.comparison = compareAudits(current, previous, triage);
  return out;
}
