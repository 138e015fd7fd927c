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

/** The fingerprints behind a comparison: `known` are new ones the site's triage silenced (counted in none). */
export interface FindingChanges {
  new: string[];
  fixed: string[];
  unchanged: string[];
  known: string[];
}

/** Which fingerprints are new, fixed, unchanged, or new but already known to the site's owner. */
export function findingChanges(current: PreviousAudit, previous: PreviousAudit, triage: TriageMap): FindingChanges {
  const now = distinctFingerprints(current.findings);
  const before = distinctFingerprints(previous.findings);
  const beforeSet = new Set(before);
  const nowSet = new Set(now);
  const appeared = now.filter((fp) => !beforeSet.has(fp));
  const silenced = (fp: string) => SILENCED.has(triage.get(fp)?.status ?? 'open');
  return {
    new: appeared.filter((fp) => !silenced(fp)),
    fixed: before.filter((fp) => !nowSet.has(fp)),
    unchanged: now.filter((fp) => beforeSet.has(fp)),
    known: appeared.filter(silenced),
  };
}

/** `current` is an audit JSON, or a comparison basis (the dashboard compares stored bases). */
export function compareAudits(current: PreviousAudit, previous: PreviousAudit, triage: TriageMap): Comparison {
  const changes = findingChanges(current, previous, triage);
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
    new: changes.new,
    fixed: changes.fixed,
    unchanged: changes.unchanged.length,
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
